import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { costTicks, countTicks, flatRange, legendValue, showPoints, timeRange } from '../lib/chart';
import { formatCost, formatCount, formatMs } from '../lib/format';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

/** What a chart's values are: how its y axis and legend write them. */
export type ChartUnit = 'count' | 'cost' | 'ms';

const UNITS: Record<ChartUnit, { ticks: (ticks: number[]) => string[]; value: (v: number) => string; empty: [number, number] }> = {
  count: { ticks: countTicks, value: formatCount, empty: [0, 10] },
  cost: { ticks: costTicks, value: formatCost, empty: [0, 1] },
  ms: { ticks: (ticks) => countTicks(ticks).map((t) => `${t} ms`), value: formatMs, empty: [0, 100] },
};

const POINT_SPACE_PX = 10;

const total = (values: ArrayLike<number | null | undefined>) => Array.from(values).reduce<number>((sum, v) => sum + (v ?? 0), 0);
const hoveredTime = legendValue((s) =>
  new Date(s * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d\.\d+Z$/, 'Z'),
);

/**
 * A time-series line chart (uPlot: ~50 KB, canvas, draws thousands of points in a few ms).
 * A canvas says nothing to a screen reader, so every chart comes with a caption, and the
 * pages show the same numbers as text beside it. `stepMs` is the time one point stands for.
 */
export function TimeChart({
  title,
  times,
  stepMs,
  series,
  unit = 'count',
  height = 180,
  bars = false,
}: {
  title: string;
  times: number[];
  stepMs: number;
  series: ChartSeries[];
  unit?: ChartUnit;
  height?: number;
  bars?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = Math.max(300, el.clientWidth);
    const format = UNITS[unit];
    const hovered = legendValue(format.value);
    const range = timeRange(times, stepMs);
    const plot = new uPlot(
      {
        width,
        height,
        legend: { show: true },
        hooks: {
          // The x range uPlot drew (ms), for tests and tools that cannot read pixels.
          setScale: [
            (u, key) => {
              if (key === 'x') el.dataset.xRange = JSON.stringify([(u.scales.x?.min ?? 0) * 1000, (u.scales.x?.max ?? 0) * 1000]);
            },
          ],
        },
        scales: {
          x: { time: true, ...(range && { range: () => range }) },
          // uPlot's own y range, but for all zeros (its 0–100).
          y: { range: (_u, min, max) => flatRange(min, max, format.empty) ?? uPlot.rangeNum(min, max, 0.1, true) },
        },
        series: [
          { value: (_u, v, _s, idx) => hoveredTime(v, idx) },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            fill: bars ? `${s.color}55` : undefined,
            width: 2,
            spanGaps: true,
            paths: bars ? uPlot.paths.bars?.({ size: [0.6, 40] }) : undefined,
            value: (_u: uPlot, v: number | null, _s: number, idx: number | null) => hovered(v, idx),
            points: {
              space: POINT_SPACE_PX,
              show: (u: uPlot, _si: number, i0: number, i1: number) =>
                !bars && showPoints(s.values, i1 - i0 + 1, u.bbox.width / devicePixelRatio, POINT_SPACE_PX),
            },
          })),
        ],
        axes: [
          {},
          {
            size: 70,
            values: (_u, ticks) => {
              const labels = format.ticks(ticks);
              // What the canvas's y axis reads, for tests and tools that cannot read pixels.
              el.dataset.yLabels = JSON.stringify(labels);
              return labels;
            },
          },
        ],
      },
      [times.map((t) => t / 1000), ...series.map((s) => s.values)],
      el,
    );
    // What the canvas holds, for tests and tools that cannot read pixels: its points and each series' total.
    el.dataset.points = String(plot.data[0].length);
    el.dataset.totals = JSON.stringify(Object.fromEntries(series.map((s, i) => [s.label, total(plot.data[i + 1] ?? [])])));
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(300, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, stepMs, series, unit, height, bars]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title} chart`} />
    </figure>
  );
}
