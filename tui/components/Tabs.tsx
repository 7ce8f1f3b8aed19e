import { Text } from "ink";

type Properties = { readonly titles: ReadonlyArray<string>; readonly current: number };

/** The screen tabs, numbered from 1, the current one inverted. */
export const Tabs = ({ titles, current }: Properties) => (
  <Text wrap="truncate">
    {titles.map((title, i) => (
      <Text key={title} inverse={i === current} bold={i === current}>
        {` ${i + 1} ${title} `}
      </Text>
    ))}
  </Text>
);
