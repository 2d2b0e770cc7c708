import { replaceFile } from "@/lib/importer/files";
import type { Input } from "@/lib/importer/input";
import type { RowState } from "@/lib/importer/ledger";

/**
 * The results files beside the input, rewritten from the ledger at the end of every
 * run, in input order: FILE.created.csv (row, referralId, leadCustomerId) and
 * FILE.rejected.csv (row, status, code, messages, then the row as written).
 */

export const resultPaths = (file: string) => ({ created: `${file}.created.csv`, rejected: `${file}.rejected.csv` });

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
  return state.issues.length ? state.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ") : state.error;
}

export async function writeResults(file: string, input: Input, stateOf: (row: number) => RowState): Promise<void> {
  let created = line(["row", "referralId", "leadCustomerId"]);
  let rejected = line(["row", "status", "code", "messages", ...input.columns]);
  for (const { row, fields } of input.rows) {
    const state = stateOf(row);
    if (state.state === "created") created += line([row, state.referralId, state.leadCustomerId]);
    if (state.state === "rejected") {
      rejected += line([row, state.status, state.code, messages(state), ...input.columns.map((c) => fields[c])]);
    }
  }
  const paths = resultPaths(file);
  await replaceFile(paths.created, created);
  await replaceFile(paths.rejected, rejected);
}
