// Vitest's JSON report plus what it leaves out: errors thrown outside any test ("Unhandled Errors": a timer
// that throws after its test ended, a rejection nobody awaited) and why the run ended. Vitest counts those
// only in its exit code; its JSON report says success: true over them. CI's counter
// (scripts/count-results.mjs) reads `unhandledErrors` and counts each as a failure.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JsonReporter } from 'vitest/node';

export default class JsonReporterWithErrors extends JsonReporter {
  async onTestRunEnd(testModules, unhandledErrors = [], reason) {
    await super.onTestRunEnd(testModules, unhandledErrors, reason);
    const out = this.options.outputFile;
    if (!out) return;
    const file = path.resolve(this.ctx.config.root, out);
    const report = JSON.parse(await readFile(file, 'utf8'));
    report.unhandledErrors = unhandledErrors.map((e) => ({ name: e.name, message: e.message, stack: e.stack }));
    report.reason = reason;
    await writeFile(file, JSON.stringify(report), 'utf8');
  }
}
