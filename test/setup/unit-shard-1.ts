// Shard 2 of the unit tier (see unit-shards.ts); run-tests.ts runs it beside the other.
import { runUnitShard } from './unit-shards.ts';

runUnitShard(1, 2);
