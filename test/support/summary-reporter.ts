// Ends the test run with one plain line, `tests: N passed, N failed[, N skipped]`, that any CI can read.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    // Files that failed outside their tests: not loaded, or a hook (beforeAll/afterAll) that threw or timed out.
    let suites = 0;
    for (const mod of testModules) {
      let failedTests = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') failedTests++;
        else counts.skipped++;
      }
      counts.failed += failedTests;
      if (mod.state() === 'failed' && failedTests === 0) suites++;
    }
    const skipped = counts.skipped ? `, ${counts.skipped} skipped` : '';
    const broken = suites ? `, ${suites} files failed outside their tests` : '';
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed${skipped}${broken}\n`);
  }
}
