import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'project_id' })
  projectId: string;

  @Column('text')
  name: string;

  /** The first characters of the secret, shown in listings to tell keys apart. */
  @Column('text')
  prefix: string;

  /** SHA-256 of the whole secret, hex; the secret itself is never stored. */
  @Column('text', { name: 'key_hash', select: false })
  keyHash: string;

  /** The user who made the key; null for keys made before this was recorded. */
  @Column('uuid', { name: 'created_by', nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
