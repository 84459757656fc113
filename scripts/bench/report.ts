/** What a benchmark section hands back, and how it is printed (Markdown, ready for docs/benchmarks.md). */

export interface Table {
  caption: string;
  head: string[];
  rows: string[][];
}

export interface Budget {
  name: string;
  target: string;
  measured: string;
  /** undefined: could not be measured in this run (a tool missing, a step failed). */
  met: boolean | undefined;
}

export interface SectionResult {
  title: string;
  tables: Table[];
  budgets: Budget[];
  notes: string[];
}

export interface BenchOptions {
  quick: boolean;
  /** Timed runs per measurement; the median is reported. */
  runs: number;
  rootDir: string;
  /** The temporary folder for inputs and outputs, deleted at the end. */
  workDir: string;
}

export function renderTable(table: Table): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    `**${table.caption}**`,
    '',
    line(table.head),
    line(table.head.map(() => '---')),
    ...table.rows.map(line),
  ].join('\n');
}

export function renderSection(section: SectionResult): string {
  const parts = [`## ${section.title}`, ...section.tables.map(renderTable), ...section.notes];
  return `${parts.join('\n\n')}\n`;
}

const verdict = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? 'met' : 'MISSED');

export function renderBudgets(budgets: readonly Budget[]): string {
  return renderTable({
    caption: 'Budgets',
    head: ['Budget', 'Target', 'Measured', 'Verdict'],
    rows: budgets.map((budget) => [budget.name, budget.target, budget.measured, verdict(budget.met)]),
  });
}

/** A row for a tool that is not on this machine, instead of a failure: `[...leading, 'not installed', '—', …]`. */
export const notInstalled = (leading: readonly string[], columns: number): string[] => [
  ...leading,
  'not installed',
  ...Array.from({ length: Math.max(0, columns - leading.length - 1) }, () => '—'),
];
