import { RequiredString } from '../validation/required-string';

/** SPEC 4.9: both fields required (400 when missing). */
export class LoginDto {
  @RequiredString(320) email: string;
  @RequiredString(1024) password: string;
}

/** SPEC 4.10. */
export class RefreshDto {
  @RequiredString(200) refresh_token: string;
}
