import type { Reporter } from './types.js';

/** The report on stdout (report.json is always written beside the cells, whatever the reporters). */
export const json: Reporter = {
  write(report, ctx) {
    ctx.stdout(JSON.stringify(report, null, 2));
    return [];
  },
};
