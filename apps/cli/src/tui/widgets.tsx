import type { ReactNode } from 'react';
import { ink } from './ink';
import { fit } from './text';

/** One screen line, cut to the width (never wrapped); the selected row in reverse video. */
export function Line({
  text,
  width,
  selected = false,
  color,
  dim = false,
  bold = false,
}: {
  text: string;
  width: number;
  selected?: boolean;
  color?: string;
  dim?: boolean;
  bold?: boolean;
}) {
  const { Text } = ink();
  return (
    <Text wrap="truncate-end" inverse={selected} color={color} dimColor={dim} bold={bold}>
      {fit(text, width)}
    </Text>
  );
}

/** An error in red, else a note, else an empty line: the line keeps its place so nothing below it jumps. */
export function MessageLine({ error, note, width }: { error?: string | null; note?: string | null; width: number }) {
  if (error) return <Line text={`! ${error}`} width={width} color="red" />;
  return <Line text={note ?? ''} width={width} dim />;
}

/** A column of exactly `height` lines: the children, then blank lines. */
export function Rows({ height, width, children }: { height: number; width: number; children: ReactNode[] }) {
  const { Box } = ink();
  const lines = children.slice(0, Math.max(0, height));
  const blanks = Array.from({ length: Math.max(0, height - lines.length) }, (_, i) => <Line key={`blank-${i}`} text="" width={width} />);
  return (
    <Box flexDirection="column" height={Math.max(0, height)} overflow="hidden">
      {lines}
      {blanks}
    </Box>
  );
}
