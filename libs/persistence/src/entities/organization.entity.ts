import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PlanName } from '@app/domain';

@Entity('organizations')
export class OrganizationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  plan: PlanName;

  /** An organization's own rate limit, overriding its plan's (CONTRACT "Rate limits"). */
  @Column('integer', { name: 'rate_limit_per_second', nullable: true })
  rateLimitPerSecond: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
