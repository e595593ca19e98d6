import { Tabs } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A settings tab's own tabs, as pills: `tabs` maps each one's value to its name, in order; the panels (a `Tabs.Panel`
 * each) are the children. `current` is the sub-tab the address names; one it does not know, or none, opens the first.
 */
export function SubTabs(props: {
  current: string | undefined;
  onChange: (value: string) => void;
  tabs: Record<string, string>;
  children: ReactNode;
}) {
  const values = Object.keys(props.tabs);
  const value = values.find((v) => v === props.current) ?? values[0];
  return (
    <Tabs value={value} onChange={(v) => v && props.onChange(v)} variant="pills" keepMounted={false}>
      <Tabs.List mb="md">
        {values.map((v) => (
          <Tabs.Tab key={v} value={v}>
            {props.tabs[v]}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {props.children}
    </Tabs>
  );
}
