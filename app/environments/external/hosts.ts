/**
 * Which simulators a run may reach. A document is data someone may have shared: opening it must
 * not make this machine talk to hosts the user never chose. A simulator on this machine
 * (loopback) is always allowed; any other host only when the user lists it in the environment
 * variable SOCIETY_SIMULATOR_HOSTS, which no document can set.
 */

/** The environment variable that lists the other hosts a simulator node may reach. */
export const SIMULATOR_HOSTS_VARIABLE = 'SOCIETY_SIMULATOR_HOSTS';

/**
 * True for a host on this machine, read from the URL alone: `localhost`, 127.0.0.0/8 and ::1.
 * No name is looked up, so a name that merely resolves to this machine still has to be listed.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  return /^127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(host);
}

/** The hosts a user allowed, from the variable's comma-separated list (`host` or `host:port`). */
export function allowedHosts(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[SIMULATOR_HOSTS_VARIABLE] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Why a run may not reach this simulator, or undefined when it may. The reason names the
 * variable that would allow it, so the person reading the error knows what to do, and that a
 * document cannot do it for them.
 */
export function hostRefusal(url: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const parsed = new URL(url);
  if (isLoopbackHost(parsed.hostname)) return undefined;
  const allowed = allowedHosts(env);
  const host = parsed.hostname.toLowerCase();
  const hostPort = parsed.host.toLowerCase();
  if (allowed.includes(host) || allowed.includes(hostPort)) return undefined;
  return `${host} is not this machine, and a document cannot choose to reach other hosts: to allow it, start society with ${SIMULATOR_HOSTS_VARIABLE}=${host}`;
}
