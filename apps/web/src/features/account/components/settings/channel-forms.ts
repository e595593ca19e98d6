import { useForm } from '@mantine/form';
import type { UserInfo } from '@shiptrail/contract';
import { toChannelValues, validateReceive, validateSend, type ChannelValues } from '../../../../components/notification-channels';

/**
 * The form of the alerts the account receives (email, SMS, webhook), as the settings and the company's set-up wizard
 * show it: the saved choices, the email and phone of the profile where none is set, checked on blur.
 */
export function useReceiveForm(info: UserInfo) {
  return useForm<ChannelValues>({
    mode: 'controlled',
    initialValues: toChannelValues(info.settings.receiveNotification, ['email', 'phone', 'webhook'], {
      email: info.profile.email,
      phone: info.profile.phone,
    }),
    validate: validateReceive,
    validateInputOnBlur: true,
  });
}

/** The form of what the account's customers are told (email, SMS), in the settings and the wizard. */
export function useSendForm(info: UserInfo) {
  return useForm<ChannelValues>({
    mode: 'controlled',
    initialValues: toChannelValues(info.settings.sendNotification, ['email', 'phone']),
    validate: validateSend,
  });
}

/** The send form's values as the settings update takes them: the triggers of each channel (the endpoints are each tracking's). */
export const sendSettings = (v: ChannelValues) => ({ email: { triggers: v.email!.triggers }, phone: { triggers: v.phone!.triggers } });
