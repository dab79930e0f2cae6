/** Log levels in increasing severity. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

/** A minimal structured logger: one JSON line per entry on stderr. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Creates a {@link Logger} that writes entries at `level` and above. */
export function createLogger(
  level: LogLevel = 'info',
  write = (line: string) => process.stderr.write(line),
): Logger {
  const min = LEVELS[level];
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS[name] < min) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: name, message, ...fields })}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
