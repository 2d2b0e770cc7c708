import { parseArgs, type ParseArgsConfig } from "node:util";

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** The exit code of a command given arguments it does not take, as the shells' own builtins answer. */
export const USAGE_EXIT = 2;

interface Accepted<O extends ParseArgsOptionsConfig> {
  options?: O;
  /** How many arguments besides the options; none when not given. */
  min?: number;
  max?: number;
  /** The words the first argument may be, for a command of subcommands. */
  commands?: readonly string[];
}

/**
 * A command's arguments, read by node:util's parseArgs: `--help` prints `usage` and exits 0; an unknown option, a
 * wrong number of arguments or an unknown subcommand prints one sentence and the usage and exits USAGE_EXIT, before
 * the command does anything.
 */
export function commandLine<const O extends ParseArgsOptionsConfig>(
  usage: string,
  { options = {} as O, min = 0, max = min, commands }: Accepted<O> = {},
  args = process.argv.slice(2),
) {
  const refuse = (sentence: string): never => {
    process.stderr.write(`${sentence}\n\n${usage}\n`);
    process.exit(USAGE_EXIT);
  };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return refuse((error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const given = parsed.positionals;
  if (given.length < min || given.length > max) {
    const wanted = min === max ? `${max}` : `${min} to ${max}`;
    refuse(`Expected ${wanted} argument${max === 1 ? "" : "s"} besides the options; got ${given.length}.`);
  }
  if (commands && given[0] !== undefined && !commands.includes(given[0]))
    refuse(`Unknown command ${given[0]}; the commands are ${commands.join(", ")}.`);
  return parsed;
}
