/** Decimal units, as the tier table states its limits. */
export function formatBytes(bytes: number): string {
  const units: Array<[number, string]> = [
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'kB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}
