// Loaded with `node --import` into a command under test: once the command has finished, it
// allocates short-lived objects for a while, as a run does, and prints the size V8's new space
// has grown to, in bytes, and its process id, as `new-space <bytes> <pid> <script>` on stderr. (Read while a collection promotes
// pages, the size can be a few MB more for a moment, with or without a cap: the size after the
// allocations is what stays.)
import { getHeapSpaceStatistics } from 'node:v8';

const newSpace = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

let done = false;
process.on('beforeExit', async () => {
  if (done) return;
  done = true;
  let kept = [];
  for (let round = 0; round < 200; round++) {
    for (let i = 0; i < 10_000; i++) {
      kept.push({ i, text: `event ${i}`, pair: [i, i + 1] });
      if (kept.length > 20_000) kept = [];
    }
    // Between bursts, as between a run's events: the garbage collector's observers run here.
    await new Promise((resolve) => setImmediate(resolve));
  }
  process.stderr.write(`new-space ${newSpace()} ${process.pid} ${process.argv[1] ?? ''}\n`);
});
