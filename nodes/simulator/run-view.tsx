/**
 * The Episodes tab: every episode this node type played, from its `step` reports (the shared
 * episode view, renderer/environments/Episodes.tsx). Found like the spec
 * (renderer/run/runViews.ts); shown only for runs in which such a node played a step.
 */
import { Episodes } from '../../renderer/environments/Episodes.tsx';
import type { NodeRunView } from '../../renderer/run/runViews.ts';

export const runView: NodeRunView = { title: 'Episodes', component: Episodes };
