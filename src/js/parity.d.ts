// Enum parity, checked by `tsc -p src/js`: the hand-written declarations
// that spell out a closed set must cover exactly the core's words (the
// generated unions of vocabulary.d.ts). Not part of the package.
import type { ObserverConfig, TrajectoryPayloadKind } from './records';
import type { BuiltinObserverName, RecordKind, StopReason, Verdict } from './vocabulary';
import type { BatchSummary } from './generate-types';

/** `true` when A and B are the same set of literals; otherwise the alias below fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

/** The payload union has one member per record kind of the core, and no other. */
export type PayloadKindsAreTheCoreKinds = Holds<Same<TrajectoryPayloadKind, RecordKind>>;
/** A batch summary counts every verdict and can count every stop reason. */
export type SummaryKeysAreTheCoreWords = Holds<Same<keyof BatchSummary['byVerdict'], Verdict>> & Holds<Same<keyof BatchSummary['byReason'], StopReason>>;
/** A pipeline's observer list offers every built-in observer by name, and no other name. */
export type ObserverNamesAreTheCoreBuiltins = Holds<Same<Exclude<ObserverConfig['observer'], object>, BuiltinObserverName>>;
