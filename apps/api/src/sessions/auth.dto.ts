import { Required, requiredText } from '@app/domain';

/** SPEC 4.9: both fields required (400 when missing). */
export class LoginDto {
  @Required(requiredText(320)) email: string;
  @Required(requiredText(1024)) password: string;
}

/** SPEC 4.10. */
export class RefreshDto {
  @Required(requiredText(200)) refresh_token: string;
}
