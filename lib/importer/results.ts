import { diskError, ImportFileError, openRegular, replaceFile } from "@/lib/importer/files";
import type { Input } from "@/lib/importer/input";
import type { RowState } from "@/lib/importer/ledger";

/**
 * The results files beside the ledger (FILE.created.csv and FILE.rejected.csv for FILE.ledger.jsonl), rewritten
 * from the ledger after every run. A results file holding a line its ledger does not (another import's) is never
 * replaced.
 */

export function resultPaths(ledgerPath: string) {
  const base = ledgerPath.endsWith(LEDGER_SUFFIX) ? ledgerPath.slice(0, -LEDGER_SUFFIX.length) : ledgerPath;
  return { created: `${base}.created.csv`, rejected: `${base}.rejected.csv` };
}

const LEDGER_SUFFIX = ".ledger.jsonl";

/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"):
 * such a cell gets a leading single quote and is quoted, so `=HYPERLINK(…)` from an
 * input row is shown as text, never run.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: string | number | null | undefined): string {
  const raw = value === null || value === undefined ? "" : String(value);
  const text = FORMULA_START.test(raw) ? `'${raw}` : raw;
  return text !== raw || /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const line = (cells: (string | number | null | undefined)[]) => `${cells.map(cell).join(",")}\n`;

/** The messages of a rejection: each issue as `path: message`, else the error text. */
export function messages(state: Extract<RowState, { state: "rejected" }>): string {
  return state.issues.length
    ? state.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")
    : state.error;
}

type Results = Record<keyof ReturnType<typeof resultPaths>, string>;

function render(input: Input, stateOf: (row: number) => RowState): Results {
  let created = line(["row", "referralId", "leadCustomerId"]);
  let rejected = line(["row", "status", "code", "messages", ...input.columns]);
  for (const { row, fields } of input.rows) {
    const state = stateOf(row);
    if (state.state === "created") created += line([row, state.referralId, state.leadCustomerId]);
    if (state.state === "rejected") {
      rejected += line([row, state.status, state.code, messages(state), ...input.columns.map((c) => fields[c])]);
    }
  }
  return { created, rejected };
}

/** Each results file beside the ledger with the text this ledger gives it. */
function resultFiles(ledgerPath: string, input: Input, stateOf: (row: number) => RowState): [string, string][] {
  const results = render(input, stateOf);
  return (Object.entries(resultPaths(ledgerPath)) as [keyof Results, string][]).map(([kind, file]) => [
    file,
    results[kind],
  ]);
}

/** Refuses, before anything is sent, results files that hold a line this ledger would not write again. */
export async function checkResults(
  ledgerPath: string,
  input: Input,
  stateOf: (row: number) => RowState,
): Promise<void> {
  for (const [file, text] of resultFiles(ledgerPath, input, stateOf)) await checkKept(file, text, ledgerPath);
}

export async function writeResults(
  ledgerPath: string,
  input: Input,
  stateOf: (row: number) => RowState,
): Promise<void> {
  for (const [file, text] of resultFiles(ledgerPath, input, stateOf)) {
    await checkKept(file, text, ledgerPath);
    await replaceFile(file, text);
  }
}

/** Every line `file` holds now must be in `text`, which replaces it: nothing an earlier run wrote is lost. */
async function checkKept(file: string, text: string, ledgerPath: string): Promise<void> {
  const handle = await openRegular(file);
  if (!handle) return;
  let existing: string;
  try {
    existing = await handle.readFile("utf8");
  } catch (error) {
    throw diskError("read", file, error);
  } finally {
    await handle.close();
  }
  const kept = new Set(text.split("\n"));
  if (existing.split("\n").every((l) => kept.has(l))) return;
  throw new ImportFileError(
    `${file} holds rows that the ledger ${ledgerPath} does not (another import wrote it): move it away or give another --ledger, then run again.`,
    "usage",
  );
}
