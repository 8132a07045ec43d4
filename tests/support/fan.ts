/** A fan-out society for engine tests. */
import type { RunSettings } from '../../app/schema/document.ts';
import { agent, edge, graph, input, output } from './graphs.ts';

export /** `n` independent agents reading one question, each feeding its own output. */
function fan(n: number, settings: RunSettings = {}) {
  const ids = Array.from({ length: n }, (_, i) => `a${i}`);
  return graph(
    [
      input('q'),
      ...ids.map((id) => agent(id, `${id}: {{ q }}`)),
      ...ids.map((id) => output(`out_${id}`)),
    ],
    [
      ...ids.map((id) => edge('q.value', `${id}.q`)),
      ...ids.map((id) => edge(`${id}.text`, `out_${id}.value`)),
    ],
    { settings },
  );
}
