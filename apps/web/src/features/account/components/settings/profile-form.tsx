import { Select, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { dropEmptyStrings, profileUpdateSchema, type UserInfo } from '@shiptrail/contract';
import { useUpdateUser } from '../../api/update-user';
import { zodResolver } from '../../../../lib/zod-resolver';
import { applyServerErrors } from '../../../../lib/notify';
import { timeZone } from '../../../../lib/format';
import { LogoField } from './logo-field';
import { FormPanel } from '../../../../components/form-panel';

/**
 * Every zone the browser knows, by IANA name ("America/New_York"). Chromium's list leaves out UTC, and a stored
 * alias ("US/Eastern") is not in it either: both are offered so the stored value always shows.
 */
const BROWSER_ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
const zonesWith = (stored: string) => [...new Set([stored, 'UTC', ...BROWSER_ZONES].filter(Boolean))];

/** The profile form's values, from the stored profile, checked as the server checks them. */
function useProfileForm(p: UserInfo['profile']) {
  return useForm({
    mode: 'controlled',
    initialValues: {
      email: p.email,
      firstName: p.firstName,
      lastName: p.lastName,
      phone: p.phone,
      userType: p.userType,
      company: p.company,
      companyUrl: p.companyUrl,
      InvoiceExtraInfo: p.InvoiceExtraInfo,
      timeZone: p.timeZone || timeZone(),
    },
    // The server drops empty fields before it validates (product rules §5); the form does the same, or a company
    // without a website could never save (an empty Company URL read as "Invalid Url" and Save stayed disabled).
    validate: (v) => zodResolver(profileUpdateSchema)(dropEmptyStrings(v)),
    validateInputOnBlur: true,
  });
}

/** A company's name, website and the extra lines of its receipts. */
function CompanyFields({ form }: { form: ReturnType<typeof useProfileForm> }) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }}>
      <TextInput label="Company" autoComplete="organization" {...form.getInputProps('company')} />
      <TextInput label="Company URL" type="url" placeholder="https://" {...form.getInputProps('companyUrl')} />
      <Textarea
        label="Invoice extra info"
        description="Shown on your receipts (VAT number, address…)"
        autosize
        minRows={2}
        {...form.getInputProps('InvoiceExtraInfo')}
        style={{ gridColumn: '1 / -1' }}
      />
    </SimpleGrid>
  );
}

export function ProfileForm({ info }: { info: UserInfo }) {
  const p = info.profile;
  const update = useUpdateUser();
  const form = useProfileForm(p);
  const isCompany = form.values.userType === 'company';
  return (
    <FormPanel
      label="Profile settings"
      onSubmit={form.onSubmit((v) =>
        update.mutate({ profile: v }, { onSuccess: () => form.resetDirty(), onError: (e) => applyServerErrors(form, e) }),
      )}
      busy={update.isPending}
      blocked={!form.isValid() || !form.isDirty()}
      submit="Save changes"
      align="end"
      after={
        /* The logo is uploaded on its own (decision 099), for a company's owner. */ p.userType === 'company' &&
        p.role !== 'courier' && <LogoField info={info} />
      }
    >
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="First name" autoComplete="given-name" {...form.getInputProps('firstName')} />
          <TextInput label="Last name" autoComplete="family-name" {...form.getInputProps('lastName')} />
          <TextInput label="Email" readOnly description="Contact support to change your login email" {...form.getInputProps('email')} />
          <TextInput label="Phone" type="tel" description="US numbers only" autoComplete="tel" {...form.getInputProps('phone')} />
          <Select
            label="Account type"
            data={[
              { value: 'person', label: 'Personal' },
              { value: 'company', label: 'Business' },
            ]}
            allowDeselect={false}
            // A user that already has a company cannot change the account type (product rules §6).
            disabled={!!p.company}
            {...form.getInputProps('userType')}
          />
          <Select
            label="Time zone"
            description={isCompany ? "Times in your customers' messages are written in it" : 'Times in your messages are written in it'}
            data={zonesWith(form.values.timeZone)}
            searchable
            allowDeselect={false}
            nothingFoundMessage="No such time zone"
            comboboxProps={{ withinPortal: true }}
            {...form.getInputProps('timeZone')}
          />
        </SimpleGrid>
        {isCompany && <CompanyFields form={form} />}
      </Stack>
    </FormPanel>
  );
}
