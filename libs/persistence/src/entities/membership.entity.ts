import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

@Entity('memberships')
export class MembershipEntity {
  @PrimaryColumn('uuid', { name: 'org_id' })
  orgId: string;

  @PrimaryColumn('uuid', { name: 'user_id' })
  userId: string;

  @Column('text')
  role: MemberRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
