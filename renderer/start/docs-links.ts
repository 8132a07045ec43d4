/**
 * The docs the start page links to. The studio serves the docs/ folder itself at `/docs/`, so the
 * links work with no network; change the list here.
 */
export interface DocLink {
  title: string;
  href: string;
  /** What a newcomer finds there, in a few words. */
  blurb: string;
}

export const DOC_LINKS: readonly DocLink[] = [
  { title: 'The society document', href: '/docs/graph-format.md', blurb: 'nodes, edges, models' },
  { title: 'Societies of mind', href: '/docs/nlsom.md', blurb: 'the NLSOM templates explained' },
  { title: 'Tools', href: '/docs/tools.md', blurb: 'agents calling tools and graphs' },
  { title: 'Expert models', href: '/docs/experts.md', blurb: 'OpenAGI-style experts' },
  { title: 'Evals', href: '/docs/evals.md', blurb: 'scoring variants of a society' },
];
