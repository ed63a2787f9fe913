import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { McpToolsService } from './mcp-tools.service';

/**
 * The MCP server (Streamable HTTP, docs/mcp.md) of the API key's project, one request of the
 * key's rate-limit bucket each; the guards answer a wrong key with 401 before MCP sees it.
 * Stateless: each POST gets a server and transport of its own, answered as JSON.
 */
@Controller('api/v1/mcp')
@ApiKeyRoute()
export class McpController {
  constructor(private readonly tools: McpToolsService) {}

  @Post()
  async post(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const server = this.tools.serverFor(principal, req.id);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the answer itself; the guards' headers (RateLimit-*) go with it.
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.setHeader('X-Request-Id', req.id);
    reply.raw.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  }

  /** No session to stream to: a stateless server answers GET as the MCP specification allows, 405. */
  @Get()
  get(@Res() reply: FastifyReply) {
    return notAllowed(reply);
  }

  /** No session to end: 405 as GET. */
  @Delete()
  delete(@Res() reply: FastifyReply) {
    return notAllowed(reply);
  }
}

function notAllowed(reply: FastifyReply) {
  return reply
    .code(405)
    .header('Allow', 'POST')
    .send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST each message' },
      id: null,
    });
}
