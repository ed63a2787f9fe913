import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';
import { repoRoot } from '@app/config/repo-root';
import { type OpenApiDocument, buildOpenApiDocument } from './openapi-document';
import { REFERENCE_PAGE_CSP, renderReferencePage } from './reference-page';
import { ROUTE_DOCS } from './routes';

const version = (JSON.parse(readFileSync(resolve(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** The API's description (issue 32), built once from the route registry; no API key, as it tells nothing about a tenant. */
@Controller()
export class OpenApiController {
  private readonly document: OpenApiDocument = buildOpenApiDocument(ROUTE_DOCS, version);
  private readonly page: string = renderReferencePage(this.document);

  @Get('api/v1/openapi.json')
  openApi(): OpenApiDocument {
    return this.document;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', REFERENCE_PAGE_CSP)
  @Header('x-content-type-options', 'nosniff')
  @Header('cache-control', 'no-cache')
  docs(): string {
    return this.page;
  }
}
