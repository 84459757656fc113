import { expect } from 'vitest';

export interface EmfDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}

/**
 * Checks a log line against the rules of CloudWatch's embedded metric format (a root `_aws` with a
 * millisecond timestamp and directives; every metric a number and every dimension a string at the
 * root; at most 30 dimensions per set and 100 metrics per directive) and returns its directives.
 */
export function emfDirectives(line: Record<string, unknown>): EmfDirective[] {
  const aws = line._aws as { Timestamp: unknown; CloudWatchMetrics: EmfDirective[] } | undefined;
  expect(aws, 'the line has no _aws member').toBeDefined();
  expect(Number.isInteger(aws!.Timestamp)).toBe(true);
  expect(aws!.CloudWatchMetrics.length).toBeGreaterThan(0);
  for (const directive of aws!.CloudWatchMetrics) {
    expect(directive.Namespace).toMatch(/^[\w./#:-]{1,255}$/);
    expect(directive.Metrics.length).toBeLessThanOrEqual(100);
    for (const metric of directive.Metrics) expect(typeof line[metric.Name], metric.Name).toBe('number');
    for (const set of directive.Dimensions) {
      expect(set.length).toBeLessThanOrEqual(30);
      for (const name of set) expect(typeof line[name], name).toBe('string');
    }
  }
  return aws!.CloudWatchMetrics;
}

/** The metric names of a line, each with the dimension sets it is recorded under. */
export function metricsByDimensions(line: Record<string, unknown>): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const directive of emfDirectives(line)) {
    for (const metric of directive.Metrics) {
      const sets = found[metric.Name] ?? [];
      sets.push(...directive.Dimensions.map((set) => set.join(',')));
      found[metric.Name] = sets;
    }
  }
  for (const sets of Object.values(found)) sets.sort();
  return found;
}
