// Enum parity, checked by `tsc -p src/js`: the hand-written declarations
// that spell out a closed set must cover exactly the core's words (the
// generated unions of vocabulary.d.ts; run `node scripts/vocabulary.mjs`,
// or build, after changing the core). Not part of the package. A failure
// reads "Type '{ missing: …; extra: … }' does not satisfy the constraint
// 'true'": the words the declaration lacks, and those the core does not have.
import type { ObserverConfig, TrajectoryPayloadKind } from './records';
import type { BuiltinObserverName, BuiltinObserverOptionKeys, RecordKind, StopReason, Verdict } from './vocabulary';
import type { BatchSummary } from './generate-types';

/** `true` when the declared words are the core's; otherwise what differs. */
type Same<Declared, Core> = [Declared] extends [Core] ? ([Core] extends [Declared] ? true : { missing: Exclude<Core, Declared> }) : { extra: Exclude<Declared, Core> };
type Holds<T extends true> = T;

/** The payload union has one member per record kind of the core, and no other. */
export type PayloadKindsAreTheCoreKinds = Holds<Same<TrajectoryPayloadKind, RecordKind>>;
/** A batch summary counts every verdict and can count every stop reason. */
export type SummaryVerdictsAreTheCoreVerdicts = Holds<Same<keyof BatchSummary['byVerdict'], Verdict>>;
export type SummaryReasonsAreTheCoreReasons = Holds<Same<keyof BatchSummary['byReason'], StopReason>>;
/** A pipeline's observer list offers every built-in observer by name, and no other name. */
export type ObserverNamesAreTheCoreBuiltins = Holds<Same<Exclude<ObserverConfig['observer'], object>, BuiltinObserverName>>;

/** Each built-in's options type offers exactly the options the core reads. */
type OptionsOf<N> = NonNullable<Extract<ObserverConfig, { observer: N }> extends { options?: infer O } ? O : never>;
type EveryHolds<T extends { [K in keyof T]: true }> = T;
export type ObserverOptionsAreTheCoreOptions = EveryHolds<{ [N in BuiltinObserverName]: Same<keyof OptionsOf<N>, BuiltinObserverOptionKeys[N]> }>;
