// `npm start` and `npm run studio` in one process: the Node version guard, the editor's build
// (made only when its sources changed since the last one, scripts/editor-build.ts), then the
// desktop app or the studio.
//
//   node scripts/launch.mjs start|studio [arguments…]
//
// Plain JavaScript, like bin/society.js, so an old Node run on it directly stops at the guard
// with one line.
import './check-node.mjs';
import module from 'node:module';

// As in bin/society.js: Node keeps the type-stripped, compiled sources on disk, so every start
// after the first skips stripping and parsing the studio's modules.
module.enableCompileCache?.();

const [what, ...argv] = process.argv.slice(2);
if (what !== 'start' && what !== 'studio') {
  process.stderr.write('usage: node scripts/launch.mjs start|studio [arguments…]\n');
  process.exit(2);
}
// `--help` needs no editor.
if (!argv.includes('--help') && !argv.includes('-h')) {
  const { ensureEditorBuild } = await import('./editor-build.ts');
  try {
    await ensureEditorBuild();
  } catch (error) {
    process.stderr.write(`society ${what}: the editor's build failed: ${error.message}\n`);
    process.exit(1);
  }
}
if (what === 'start') {
  const { start } = await import('../main/start.ts');
  process.exitCode = await start(argv);
} else {
  const { runStudio } = await import('../main/studio/start.ts');
  process.exitCode = await runStudio(argv);
}
