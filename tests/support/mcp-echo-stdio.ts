/**
 * A stdio MCP server (the official SDK's server side) that echoes the value of its
 * `SERVICE_PASS` environment variable: in a tool's result (`printenv`) and in a tool's error
 * (`failenv`). Run as `node tests/support/mcp-echo-stdio.ts`, as a stdio profile names it, to
 * prove a key given to a server never comes back out of the run.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'echo-env-test-server', version: '1.0.0' });
server.registerTool('printenv', { description: 'says the variable it was given' }, async () => ({
  content: [{ type: 'text' as const, text: `my pass is ${process.env.SERVICE_PASS}` }],
}));
server.registerTool('failenv', { description: 'fails, quoting the variable' }, async () => {
  throw new Error(`refused with pass ${process.env.SERVICE_PASS}`);
});
await server.connect(new StdioServerTransport());
