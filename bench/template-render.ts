/**
 * `node bench/template-render.ts`: what rendering a prompt on a worker thread costs next to
 * rendering it on the caller's thread, for a short prompt and for a mindstorm member's prompt
 * that reads a long transcript (129 members, 5 rounds). Figures only; nothing is asserted.
 */
import { renderTemplate } from '../app/node-sdk/template.ts';
import { renderOffThread } from '../app/runtime/template-pool.ts';
import { DEFAULT_LIMITS } from '../app/schema/limits.ts';

const SHORT = 'You are {{ item }}. Answer the question: {{ question }}';
const TRANSCRIPT =
  'Round {{ loop.round }}. {% for m in loop.transcript %}{% if m.round == loop.round %}{{ m.from }}: {{ m.text }}\n{% endif %}{% endfor %}Your turn, {{ item }}.';

const transcript = Array.from({ length: 129 * 5 }, (_, i) => ({
  round: Math.floor(i / 129) + 1,
  stage: 'round',
  from: `artist#${i % 129}@r${Math.floor(i / 129) + 1}`,
  to: ['critic'],
  text: 'A painting of a lighthouse at dusk, with long shadows over the rocks. '.repeat(4),
}));
const short = { item: 'a careful critic', question: 'Which painting is the most striking?' };
const long = {
  item: 'artist 7',
  loop: { id: 'storm', round: 5, maxRounds: 5, stage: 'round', transcript },
};

async function measure(
  label: string,
  template: string,
  vars: Record<string, unknown>,
  n: number,
): Promise<void> {
  await renderOffThread(template, vars); // start the threads
  let t = performance.now();
  for (let i = 0; i < n; i++) renderTemplate(template, vars, DEFAULT_LIMITS);
  const here = (performance.now() - t) / n;
  t = performance.now();
  for (let i = 0; i < n; i++) await renderOffThread(template, vars);
  const serial = (performance.now() - t) / n;
  t = performance.now();
  await Promise.all(Array.from({ length: n }, () => renderOffThread(template, vars)));
  const parallel = (performance.now() - t) / n;
  const kb = (JSON.stringify(vars).length / 1024).toFixed(0);
  console.log(
    `${label.padEnd(28)} vars ${kb.padStart(4)} KB  this thread ${here.toFixed(3)} ms  ` +
      `worker ${serial.toFixed(3)} ms (one at a time)  ${parallel.toFixed(3)} ms (${n} at once)`,
  );
}

await measure('short prompt', SHORT, short, 500);
await measure('prompt reading a transcript', TRANSCRIPT, long, 200);
