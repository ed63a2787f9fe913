import { InitialSchema1763800000000 } from './1763800000000-InitialSchema';
import { SessionsAndAudit1763900000000 } from './1763900000000-SessionsAndAudit';
import { UsageCounters1764000000000 } from './1764000000000-UsageCounters';
import { TraceDeletions1764100000000 } from './1764100000000-TraceDeletions';
import { ApiKeyChanges1764200000000 } from './1764200000000-ApiKeyChanges';
import { CompactVersions1764300000000 } from './1764300000000-CompactVersions';
import { Evaluators1764400000000 } from './1764400000000-Evaluators';
import { AppliedSequences1764500000000 } from './1764500000000-AppliedSequences';

/** Every migration in order; the data source takes classes, so tests and builds share one list. */
export const MIGRATIONS = [InitialSchema1763800000000, SessionsAndAudit1763900000000, UsageCounters1764000000000, TraceDeletions1764100000000, ApiKeyChanges1764200000000, CompactVersions1764300000000, Evaluators1764400000000, AppliedSequences1764500000000];
