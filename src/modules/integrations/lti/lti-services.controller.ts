import { OwnBudget } from '@/core/budgets/budgets';
import { Body, Controller, Delete, Get, Param, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import { ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { LtiEnabledGuard } from './lti-enabled.guard';
import { LtiAdvantageService, type Paged } from './lti-advantage.service';
import { LtiProtocolErrors, LtiServiceError, sendLtiServiceError } from './lti-service-errors';
import { type ServiceAccess, LtiTokenService } from './lti-token.service';
import { DeepLinkingRefusal, LtiDeepLinkingService } from './lti-deep-linking.service';
import { sendErrorPage } from './lti-html';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { LTI_DEEP_LINK_IP } from './lti.limits';

const LINE_ITEM = 'application/vnd.ims.lis.v2.lineitem+json';
const LINE_ITEMS = 'application/vnd.ims.lis.v2.lineitemcontainer+json';
const RESULTS = 'application/vnd.ims.lis.v2.resultcontainer+json';
const MEMBERSHIPS = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';
const BODY_LIMIT = 64 * 1024;

/** A JSON body of one of the standard's media types (`application/vnd.ims...+json`), which the JSON parser skips. */
async function jsonBody(req: Request): Promise<unknown> {
  if (req.body && typeof req.body === 'object' && Object.keys(req.body as object).length > 0) return req.body;
  if (req.readableEnded) return req.body;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new LtiServiceError(413, 'invalid_request', 'The body is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new LtiServiceError(400, 'invalid_request', 'The body is not JSON.');
  }
}

const SCOPE_NOTE = 'Bearer token of `POST /lti/token`; errors as `{error, error_description}`.';

/**
 * The LTI Advantage service routes tools call with their service token: token endpoint, AGS, NRPS. Public to the
 * credential guard (the tool's token is not a credential of this API); each answers the standard's media types
 * and error bodies.
 */
@ApiTags('lti')
@Public()
// Service tokens count against their tool's own limit (lti.limits.ts), not the address budget of anonymous calls.
@OwnBudget()
@UseGuards(LtiEnabledGuard)
@Controller('lti')
export class LtiServicesController {
  constructor(
    private readonly tokens: LtiTokenService,
    private readonly advantage: LtiAdvantageService,
    private readonly deepLinking: LtiDeepLinkingService,
  ) {}

  @Post('deep-linking/return')
  @RateLimit(LTI_DEEP_LINK_IP)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({
    summary: 'Deep Linking return (the tool posts the editor’s choice)',
    description:
      'Form field `JWT`: an `LtiDeepLinkingResponse` signed by the tool (`iss` = client_id, `aud` = the platform ' +
      'issuer, `nonce` single use, `deployment_id`, `data` echoed). Each `ltiResourceLink` becomes a lesson appended ' +
      'to the course (at most 50 items); 303 to `{WEB_URL}/editor/courses/<id>?lti_added=<n>`. A bad response is ' +
      '400 `text/html` naming the reason. Audited (`lti.deep_link_received`).',
  })
  @ApiResponse({ status: 303, description: 'To the course in the editor' })
  @ApiResponse({
    status: 400,
    description: 'text/html naming the reason',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  async deepLinkingReturn(
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    try {
      res.redirect(303, await this.deepLinking.receive(body?.JWT, req.ip));
    } catch (err) {
      if (err instanceof DeepLinkingRefusal) sendErrorPage(res, 400, err.message);
      else throw err;
    }
  }

  @Post('token')
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({
    summary: 'Service access token for tools (client_credentials with a signed client assertion)',
    description:
      '`grant_type=client_credentials`, `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, ' +
      '`client_assertion` (RS256, `iss` = `sub` = client_id, `aud` = this URL or the issuer, `jti` single use, `exp` ' +
      'at most 5 minutes ahead), `scope`. Errors in RFC 6749 form. 60 per minute per tool.',
  })
  @ApiOkResponse({ description: '`{access_token, token_type: "Bearer", expires_in: 3600, scope}`' })
  @LtiProtocolErrors(400, 401, 429)
  async token(@Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    await this.answer(res, async () => {
      const token = await this.tokens.token(body ?? {});
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Pragma', 'no-cache');
      res.status(200).json(token);
    });
  }

  @Get('contexts/:context_id/lineitems')
  @ApiOperation({
    summary: "AGS: the tool's line items in a context",
    description: `lineitem or lineitem.readonly. ${SCOPE_NOTE}`,
  })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiProduces(LINE_ITEMS)
  @ApiOkResponse({ description: 'Line items; `Link: <...>; rel="next"` while more' })
  @LtiProtocolErrors(401, 403, 404)
  async lineItems(@Param('context_id') contextId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      this.sendPage(res, LINE_ITEMS, await this.advantage.lineItems(access, contextId, req.query));
    });
  }

  @Post('contexts/:context_id/lineitems')
  @ApiOperation({ summary: 'AGS: create a line item', description: `lineitem. ${SCOPE_NOTE}` })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiConsumes(LINE_ITEM)
  @ApiProduces(LINE_ITEM)
  @ApiOkResponse({ description: 'The line item (201)' })
  @LtiProtocolErrors(400, 401, 403, 404)
  async createLineItem(
    @Param('context_id') contextId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      this.send(res, 201, LINE_ITEM, await this.advantage.createLineItem(access, contextId, await jsonBody(req)));
    });
  }

  @Get('contexts/:context_id/lineitems/:line_item_id')
  @ApiOperation({ summary: 'AGS: a line item', description: `lineitem or lineitem.readonly. ${SCOPE_NOTE}` })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiParam({ name: 'line_item_id', format: 'uuid' })
  @ApiProduces(LINE_ITEM)
  @ApiOkResponse({ description: 'The line item' })
  @LtiProtocolErrors(401, 403, 404)
  async lineItem(
    @Param('context_id') contextId: string,
    @Param('line_item_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      this.send(res, 200, LINE_ITEM, await this.advantage.lineItem(access, contextId, id));
    });
  }

  @Put('contexts/:context_id/lineitems/:line_item_id')
  @ApiOperation({ summary: 'AGS: change a line item', description: `lineitem. ${SCOPE_NOTE}` })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiParam({ name: 'line_item_id', format: 'uuid' })
  @ApiConsumes(LINE_ITEM)
  @ApiProduces(LINE_ITEM)
  @ApiOkResponse({ description: 'The line item' })
  @LtiProtocolErrors(400, 401, 403, 404)
  async updateLineItem(
    @Param('context_id') contextId: string,
    @Param('line_item_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      this.send(res, 200, LINE_ITEM, await this.advantage.updateLineItem(access, contextId, id, await jsonBody(req)));
    });
  }

  @Delete('contexts/:context_id/lineitems/:line_item_id')
  @ApiOperation({ summary: 'AGS: delete a line item', description: `lineitem. ${SCOPE_NOTE}` })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiParam({ name: 'line_item_id', format: 'uuid' })
  @ApiOkResponse({ description: '204' })
  @LtiProtocolErrors(401, 403, 404)
  async deleteLineItem(
    @Param('context_id') contextId: string,
    @Param('line_item_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      await this.advantage.deleteLineItem(access, contextId, id);
      res.status(204).end();
    });
  }

  @Post('contexts/:context_id/lineitems/:line_item_id/scores')
  @ApiOperation({
    summary: 'AGS: post a score',
    description:
      `score. ${SCOPE_NOTE} A score not newer than the stored one is ignored (204). FullyGraded with Completed or ` +
      "Submitted on a lesson's line item completes the lesson (progress, events, XP, certificate), once. The " +
      "latest score given on a lesson's line item shows as `lesson_scores` (0..100) in the learner's progress and " +
      "the teacher's student view.",
  })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiParam({ name: 'line_item_id', format: 'uuid' })
  @ApiConsumes('application/vnd.ims.lis.v1.score+json')
  @ApiOkResponse({ description: '204' })
  @LtiProtocolErrors(400, 401, 403, 404, 422)
  async score(
    @Param('context_id') contextId: string,
    @Param('line_item_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // The token's own check is in the score's statement (LtiTokenService.scoreAccess).
    await this.answer(res, async () => {
      const access = await this.tokens.scoreAccess(req.headers.authorization);
      await this.advantage.score(access, contextId, id, await jsonBody(req));
      res.status(204).end();
    });
  }

  @Get('contexts/:context_id/lineitems/:line_item_id/results')
  @ApiOperation({ summary: 'AGS: results of a line item', description: `result.readonly. ${SCOPE_NOTE}` })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiParam({ name: 'line_item_id', format: 'uuid' })
  @ApiProduces(RESULTS)
  @ApiOkResponse({ description: 'Results; `Link: <...>; rel="next"` while more' })
  @LtiProtocolErrors(401, 403, 404)
  async results(
    @Param('context_id') contextId: string,
    @Param('line_item_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      this.sendPage(res, RESULTS, await this.advantage.results(access, contextId, id, req.query));
    });
  }

  @Get('contexts/:context_id/memberships')
  @ApiOperation({
    summary: "NRPS: the context's members",
    description:
      `contextmembership.readonly. ${SCOPE_NOTE} Filters \`role\` (a full role URI or Learner, Instructor, ` +
      `Administrator), \`limit\` (1..1000); ordered by user id. A member whose membership is suspended (SCIM) is ` +
      `listed with \`status: "Inactive"\`. Names and emails follow the deployment's privacy settings; a minor's email ` +
      `is never sent.`,
  })
  @ApiParam({ name: 'context_id', format: 'uuid' })
  @ApiProduces(MEMBERSHIPS)
  @ApiOkResponse({ description: 'The membership container; `Link: <...>; rel="next"` until the last page' })
  @LtiProtocolErrors(401, 403, 404)
  async memberships(@Param('context_id') contextId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.withAccess(req, res, async (access) => {
      this.sendPage(res, MEMBERSHIPS, await this.advantage.memberships(access, contextId, req.query));
    });
  }

  private async answer(res: Response, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (err instanceof LtiServiceError) sendLtiServiceError(res, err);
      else throw err;
    }
  }

  /** The AGS and NRPS routes: the tool's bearer token first, then the work, errors in the standard's form. */
  private async withAccess(req: Request, res: Response, work: (access: ServiceAccess) => Promise<void>): Promise<void> {
    await this.answer(res, async () => work(await this.tokens.access(req.headers.authorization)));
  }

  private sendPage(res: Response, type: string, page: Paged<unknown>): void {
    if (page.next) res.setHeader('Link', `<${page.next}>; rel="next"`);
    this.send(res, 200, type, page.body);
  }

  private send(res: Response, status: number, type: string, body: unknown): void {
    res.status(status).setHeader('Content-Type', `${type}; charset=utf-8`);
    res.send(JSON.stringify(body));
  }
}
