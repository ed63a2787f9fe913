import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

const total = (values: ArrayLike<number | null | undefined>) => Array.from(values).reduce<number>((sum, v) => sum + (v ?? 0), 0);

/**
 * A time-series line chart (uPlot: ~50 KB, canvas, draws thousands of points in a few ms).
 * A canvas says nothing to a screen reader, so every chart comes with a caption, and the
 * pages show the same numbers as text beside it.
 */
export function TimeChart({ title, times, series, height = 180, bars = false }: { title: string; times: number[]; series: ChartSeries[]; height?: number; bars?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = Math.max(300, el.clientWidth);
    const plot = new uPlot(
      {
        width,
        height,
        legend: { show: true },
        scales: { x: { time: true } },
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            fill: bars ? `${s.color}55` : undefined,
            width: 2,
            spanGaps: true,
            paths: bars ? uPlot.paths.bars?.({ size: [0.6, 40] }) : undefined,
          })),
        ],
        axes: [{}, { size: 60 }],
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
  }, [times, series, height, bars]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title} chart`} />
    </figure>
  );
}
