import { Tabs } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A settings tab's own tabs, as pills: `tabs` in order, the panels (a `Tabs.Panel` each) as children. `current` is the
 * sub-tab the address names; one it does not know, or none, opens the first.
 */
export function SubTabs(props: {
  current: string | undefined;
  onChange: (value: string) => void;
  tabs: { value: string; label: string }[];
  children: ReactNode;
}) {
  const value = props.tabs.some((t) => t.value === props.current) ? props.current : props.tabs[0]!.value;
  return (
    <Tabs value={value} onChange={(v) => v && props.onChange(v)} variant="pills" keepMounted={false}>
      <Tabs.List mb="md">
        {props.tabs.map((t) => (
          <Tabs.Tab key={t.value} value={t.value}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {props.children}
    </Tabs>
  );
}
