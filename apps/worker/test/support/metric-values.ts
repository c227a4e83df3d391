import type { Registry } from 'prom-client';

/** The value of a counter (or a histogram's count) for the given labels; 0 when never set. */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`metric ${name} is not registered`);
  const { values } = await metric.get();
  const wanted = Object.entries(labels);
  const matching = values.filter(
    (entry) =>
      wanted.every(([key, value]) => String(entry.labels[key]) === value) &&
      // A histogram's `_count` series stands for the number of observations.
      ('metricName' in entry && entry.metricName ? String(entry.metricName).endsWith('_count') : true),
  );
  return matching.reduce((sum, entry) => sum + entry.value, 0);
}
