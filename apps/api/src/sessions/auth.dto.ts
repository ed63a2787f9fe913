import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class LoginDto {
  @IsString({ message: 'email is required' })
  @IsNotEmpty({ message: 'email is required' })
  @MaxLength(320)
  email: string;

  @IsString({ message: 'password is required' })
  @IsNotEmpty({ message: 'password is required' })
  @MaxLength(1024)
  password: string;
}

export class RefreshDto {
  @IsString({ message: 'refresh_token is required' })
  @IsNotEmpty({ message: 'refresh_token is required' })
  @MaxLength(200)
  refresh_token: string;
}
