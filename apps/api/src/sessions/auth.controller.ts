import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PAYLOAD_LIMITS } from '@app/domain';
import { RefreshDto, LoginDto } from './auth.dto';
import { type AccessClaims, AuthService } from './auth.service';
import { Session, SessionGuard } from './session.guard';
import { BodyWithinGuard } from '../http/body-limit';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';

/** SPEC 4.9–4.11: every answer in the `{data, error}` envelope. */
@Controller('api/v1/auth')
// Per client IP (CONTRACT "Rate limits"): counted before the body or the session is even looked at.
@UseGuards(RateLimitGuard, new BodyWithinGuard(PAYLOAD_LIMITS.default))
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @HttpCode(200)
  async login(@Body() body: LoginDto, @Req() req: FastifyRequest) {
    return { data: await this.auth.login(body.email, body.password, req.ip), error: null };
  }

  @Post('refresh')
  @HttpCode(200)
  async refresh(@Body() body: RefreshDto, @Req() req: FastifyRequest) {
    return { data: await this.auth.refresh(body.refresh_token, req.ip), error: null };
  }

  @Post('logout')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  async logout(@Session() session: AccessClaims, @Req() req: FastifyRequest) {
    await this.auth.logout(session, req.ip);
    return { data: { success: true }, error: null };
  }
}
