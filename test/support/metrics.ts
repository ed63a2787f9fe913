import { type MetricFamily, parsePrometheusText, sampleOf } from '@app/metrics/testing/prometheus-text';

export type Families = Map<string, MetricFamily>;

/** One scrape of a `/metrics` address, read by the strict parser; fails on anything but 200. */
export async function scrapeMetrics(url: string): Promise<{ res: Response; families: Families }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return { res, families: parsePrometheusText(await res.text()) };
}

/** The value of the one sample of `name` whose labels include `labels`. */
export const metricValue = (families: Families, name: string, labels: Record<string, string> = {}): number | undefined =>
  sampleOf(families, name, labels)?.value;
