//! Native tests of the capture contract: stamping, child runs, ordered
//! delivery to async sinks, failure policies, JSONL round trips.
#![cfg(not(target_arch = "wasm32"))]

use agent_trajectories::core::capture::{
    jsonl, Dispatcher, EndedOutcome, JsonlSink, MemorySink, OutcomeStatus, Payload, Recorder, RunIdentity, RunOutcome, Sink, SinkPolicy,
    TrajectoryRecord, TRAJECTORY_SCHEMA_VERSION,
};
use agent_trajectories::core::message::{ModelMessage, Role};
use agent_trajectories::core::{Error, ErrorCode};
use proptest::prelude::*;
use serde_json::json;

fn started(id: &str) -> Payload {
    Payload::RunStarted { identity: RunIdentity { run_id: id.into(), parent_run_id: None, agent: None, model_id: None } }
}

fn ended() -> Payload {
    Payload::RunEnded {
        outcome: RunOutcome { status: OutcomeStatus::Completed, reason: Some("goal-reached".into()), message: None, error_code: None, verdict: None }
            .into(),
        new_messages: vec![ModelMessage::text(Role::Assistant, "done")],
    }
}

fn tool(i: u64) -> Payload {
    Payload::ToolStarted { tool_call_id: format!("c{i}"), tool_name: "read".into(), args: json!({ "path": format!("f{i}") }) }
}

#[test]
fn stamps_seq_identity_and_clock_time() {
    let mut rec = Recorder::new(None);
    let first = rec.stamp(Payload::TurnStarted { turn_index: None }, 5.9).unwrap();
    assert_eq!((first.seq, first.run_id.as_deref(), first.recorded_at_unix_ms), (0, None, 5));
    let s = rec.stamp(started("r1"), 10.0).unwrap();
    assert_eq!((s.seq, s.run_id.as_deref(), s.schema_version), (1, Some("r1"), TRAJECTORY_SCHEMA_VERSION));
    let t = rec.stamp(tool(1), 11.0).unwrap();
    assert_eq!((t.seq, t.run_id.as_deref(), t.depth), (2, Some("r1"), 0));
}

#[test]
fn refuses_contradictions_without_changing_state() {
    let mut rec = Recorder::new(Some("r1".into()));
    let e = rec.stamp(started("other"), 1.0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(rec.next_seq(), 0);
    rec.stamp(started("r1"), 1.0).unwrap();
    assert!(rec.stamp(started("r1"), 1.0).unwrap_err().message.contains("twice"));
    let e = rec.stamp(tool(1), f64::NAN).unwrap_err();
    assert_eq!(e.code, ErrorCode::CallbackFailed);
    rec.stamp(ended(), 2.0).unwrap();
    let e = rec.stamp(tool(2), 3.0).unwrap_err();
    assert!(e.message.contains("already ended"), "{}", e.message);
    assert_eq!(rec.next_seq(), 2);
    // An empty run id names no run, in run_started as in a recorder's runId.
    let mut unnamed = Recorder::new(None);
    let e = unnamed.stamp(started(""), 1.0).unwrap_err();
    assert_eq!((e.code, e.message.as_str(), unnamed.next_seq()), (ErrorCode::InvalidArgument, "run_started: identity.run_id must not be empty", 0));
}

#[test]
fn a_run_end_is_stamped_at_the_last_time_when_the_clock_fails() {
    let broken = || Err(Error::new(ErrorCode::CallbackFailed, "clock returned NaN"));
    let mut rec = Recorder::new(None);
    assert!(rec.time_for(&ended(), broken()).is_err(), "nothing stamped yet: no time to fall back to");
    rec.stamp(started("r"), 5.0).unwrap();
    assert_eq!(rec.time_for(&tool(1), broken()).unwrap_err().code, ErrorCode::CallbackFailed, "any other record is refused");
    assert!(rec.clock_failed(), "refused for the clock's failure: the clock's fault, not the recorder's");
    assert_eq!(rec.time_for(&ended(), broken()).unwrap(), 5.0);
    assert!(!rec.clock_failed(), "stamped after all");
    assert_eq!(rec.time_for(&ended(), Ok(7.0)).unwrap(), 7.0, "a working clock is read as it is");
    rec.close();
    assert_eq!(rec.time_for(&tool(2), broken()).unwrap(), 5.0, "a closing run's every record");
}

#[test]
fn child_runs_have_their_own_seq_space() {
    let mut parent = Recorder::new(None);
    assert!(parent.child(None).is_err(), "no parent id yet");
    parent.stamp(started("p"), 0.0).unwrap();
    parent.stamp(tool(1), 0.0).unwrap();
    let mut child = parent.child(Some("c".into())).unwrap();
    let c0 = child.stamp(started("c"), 0.0).unwrap();
    assert_eq!((c0.seq, c0.parent_run_id.as_deref(), c0.depth), (0, Some("p"), 1));
    let mut grandchild = child.child(None).unwrap();
    let g = grandchild.stamp(started("g"), 0.0).unwrap();
    assert_eq!((g.seq, g.parent_run_id.as_deref(), g.depth), (0, Some("c"), 2));
    assert_eq!(grandchild.stamp(tool(9), 0.0).unwrap().seq, 1);
    // The parent's seq space is untouched by its children.
    assert_eq!(parent.stamp(tool(2), 0.0).unwrap().seq, 2);
    // A child run starts inside its parent's: not after the parent ended.
    parent.stamp(ended(), 0.0).unwrap();
    assert!(parent.child(Some("late".into())).unwrap_err().message.starts_with("child(): run p already ended"));
}

/// A sink that completes deliveries later, in an order the test chooses.
#[test]
fn async_deliveries_reach_the_sink_in_seq_order() {
    let mut d: Dispatcher<u64> = Dispatcher::new(SinkPolicy::Drop);
    let mut delivered = Vec::new();
    // 0 goes out at once; 1..4 wait behind it.
    let mut in_flight = d.submit(0).unwrap();
    for i in 1..5 {
        assert_eq!(d.submit(i).unwrap(), None);
    }
    assert_eq!(d.pending(), 5);
    while let Some(item) = in_flight {
        delivered.push(item);
        in_flight = d.settle(item, Ok(())).next;
    }
    assert_eq!(delivered, vec![0, 1, 2, 3, 4]);
    assert!(d.is_idle());
    assert_eq!(d.delivered(), 5);
}

#[test]
fn drop_policy_reports_and_continues() {
    let mut d: Dispatcher<u64> = Dispatcher::new(SinkPolicy::Drop);
    let first = d.submit(0).unwrap().unwrap();
    d.submit(1).unwrap();
    let s = d.settle(first, Err(Error::new(ErrorCode::CallbackFailed, "disk full")));
    let report = s.report.unwrap();
    assert_eq!((report.code, report.message.as_str()), (ErrorCode::SinkFailed, "disk full"));
    assert_eq!(s.next, Some(1));
    assert_eq!(d.dropped(), 1);
    assert!(d.submit(2).is_ok());
}

#[test]
fn fail_policy_stops_and_keeps_what_was_not_delivered() {
    let mut d: Dispatcher<u64> = Dispatcher::new(SinkPolicy::Fail);
    let first = d.submit(0).unwrap().unwrap();
    d.submit(1).unwrap();
    d.submit(2).unwrap();
    let s = d.settle(first, Err(Error::new(ErrorCode::SinkFailed, "rejected")));
    assert!(s.report.is_none() && s.next.is_none());
    assert_eq!(d.submit(3).unwrap_err().code, ErrorCode::SinkFailed);
    assert_eq!(d.undelivered().copied().collect::<Vec<_>>(), vec![0, 1, 2]);
    assert!(d.is_idle());
}

/// A sink that keeps the item itself settles with nothing handed back,
/// counted as delivered like any other.
#[test]
fn a_kept_delivery_counts_and_lets_the_next_go() {
    let mut d: Dispatcher<u64> = Dispatcher::new(SinkPolicy::Fail);
    assert_eq!(d.submit(0).unwrap(), Some(0));
    d.submit(1).unwrap();
    let s = d.settle_kept();
    assert!(s.report.is_none());
    assert_eq!(s.next, Some(1));
    assert_eq!(d.settle_kept().next, None);
    assert!(d.is_idle());
    assert_eq!(d.delivered(), 2);
}

/// A MemorySink keeps a record given whole; once freed (closed) it refuses
/// it and hands it back, so a caller can still keep it as undelivered.
#[test]
fn a_memory_sink_keeps_a_record_whole_or_hands_it_back() {
    let mut rec = Recorder::new(None);
    let mut mem = MemorySink::new();
    let first = rec.stamp(started("r"), 1.0).unwrap();
    mem.keep(first.clone()).unwrap();
    assert_eq!(mem.records(), &[first]);
    mem.close();
    let second = rec.stamp(tool(1), 2.0).unwrap();
    let (err, back) = *mem.keep(second.clone()).unwrap_err();
    assert_eq!(err.code, ErrorCode::SinkFailed);
    assert_eq!(back, second);
    assert_eq!(mem.accept(&second).unwrap_err().code, ErrorCode::SinkFailed);
}

#[test]
fn sinks_store_in_order() {
    let mut rec = Recorder::new(None);
    let (mut mem, mut lines) = (MemorySink::new(), JsonlSink::new());
    for p in [started("r"), tool(1), ended()] {
        let r = rec.stamp(p, 1.0).unwrap();
        mem.accept(&r).unwrap();
        lines.accept(&r).unwrap();
    }
    assert_eq!(mem.to_jsonl(), lines.text());
    assert_eq!(jsonl::parse(lines.text()).unwrap(), mem.records());
    assert_eq!(lines.len(), 3);
    let taken = lines.take();
    assert_eq!(taken.lines().count(), 3);
    assert!(lines.is_empty());
}

#[test]
fn record_wire_format_is_stable() {
    let mut rec = Recorder::new(None);
    let r = rec.stamp(started("r1"), 1700000000000.0).unwrap();
    assert_eq!(
        r.to_json(),
        r#"{"schema_version":1,"seq":0,"run_id":"r1","depth":0,"recorded_at_unix_ms":1700000000000,"payload":{"kind":"run_started","identity":{"run_id":"r1"}}}"#
    );
}

#[test]
fn versions_missing_old_and_newer() {
    let v0 = r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}"#;
    assert_eq!(TrajectoryRecord::from_json(v0).unwrap().schema_version, 0);
    let newer = r#"{"schema_version":2,"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"from_the_future"}}"#;
    let e = TrajectoryRecord::from_json(newer).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedSchemaVersion);
    let e = TrajectoryRecord::from_json(r#"{"schema_version":"1","seq":0}"#).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidRecord);
}

#[test]
fn jsonl_tolerates_crlf_and_trailing_newline_and_names_bad_lines() {
    let mut rec = Recorder::new(None);
    let a = rec.stamp(started("r"), 1.0).unwrap().to_json();
    let b = rec.stamp(tool(1), 2.0).unwrap().to_json();
    let text = format!("{a}\r\n\r\n{b}\r\n");
    assert_eq!(jsonl::parse(&text).unwrap().len(), 2);
    let broken = format!("{a}\n{{not json\n{b}\n{{\"seq\":1}}\n");
    let e = jsonl::parse(&broken).unwrap_err();
    assert_eq!((e.code, e.line), (ErrorCode::JsonlParse, Some(2)));
    assert_eq!(e.message, "line 2: invalid JSON at column 2: key must be a string");
    let e = jsonl::parse(&format!("{a}\n{{\"schema_version\":1,\"seq\":1")).unwrap_err();
    assert_eq!(e.message, "line 2: invalid JSON at column 27: EOF while parsing an object");
    let e = jsonl::parse("[1,2,3]\n").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidRecord, "line 1: invalid type: an array, expected a record (a JSON object)"));
    let (good, bad) = jsonl::parse_lenient(&broken);
    assert_eq!(good.len(), 2);
    assert_eq!(bad.iter().map(|b| (b.line, b.code)).collect::<Vec<_>>(), vec![(2, "JSONL_PARSE"), (4, "INVALID_RECORD")]);
    let e = jsonl::parse(r#"{"seq":0,"recorded_at_unix_ms":1,"payload":{"kind":"nope"}}"#).unwrap_err();
    assert!(e.message.contains("payload.kind: kind \"nope\" is not a record kind (the kinds: run_started, run_ended,"), "{}", e.message);
}

#[test]
fn payload_errors_name_the_field() {
    let read = |payload: &str| {
        let text = format!(r#"{{"seq":0,"recorded_at_unix_ms":1,"payload":{payload}}}"#);
        TrajectoryRecord::from_json(&text).map_err(|e| (e.code, e.message))
    };
    let bad = |payload: &str, says: &str| {
        let (code, message) = read(payload).unwrap_err();
        assert_eq!(code, ErrorCode::InvalidRecord, "{message}");
        assert!(message.contains(says), "{payload}: {message}");
    };
    bad(r#"{"kind":"tool_ended","tool_call_id":"x","is_error":false}"#, "missing field \"payload.tool_name\"");
    bad(
        r#"{"kind":"tool_ended","tool_call_id":7,"tool_name":"t","is_error":false}"#,
        "payload.tool_call_id: invalid type: a number, expected a string",
    );
    bad(r#"{"kind":"iteration_started","iteration":9007199254740992}"#, "payload.iteration: 9007199254740992 is past the largest exact JS integer");
    bad(r#"{"kind":"iteration_started","iteration":1.5}"#, "payload.iteration: invalid value: the number 1.5, expected a whole number (0 or more)");
    bad(
        r#"{"kind":"iteration_completed","iteration":1,"decision":"tools","tools":["a",2],"failed":false}"#,
        "payload.tools[1]: invalid type: a number",
    );
    bad(r#"{"kind":"message_appended","message":{"role":"robot","content":""}}"#, "payload.message: unknown role");
    bad(r#"{"kind":"run_ended","outcome":5}"#, "payload.outcome: outcome must be an object");
    bad(r#"{"tool_name":"t"}"#, "missing field \"payload.kind\"");
    bad(r#"[1]"#, "payload: invalid type: an array, expected an object");
    // Absent lists, values and options read as empty; unknown keys are ignored.
    let p = read(r#"{"kind":"tool_started","tool_call_id":"c","tool_name":"t","extra":1}"#).unwrap().payload;
    assert_eq!(p, Payload::ToolStarted { tool_call_id: "c".into(), tool_name: "t".into(), args: serde_json::Value::Null });
    let p = read(r#"{"kind":"turn_started","turn_index":null}"#).unwrap().payload;
    assert_eq!(p, Payload::TurnStarted { turn_index: None });
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1e9f64..1e9).prop_map(serde_json::Value::from),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4).prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        (".{0,10}", ".{0,10}", arb_json()).prop_map(|(id, name, args)| Payload::ToolStarted { tool_call_id: id, tool_name: name, args }),
        (".{0,10}", arb_json(), any::<bool>()).prop_map(|(id, result, is_error)| Payload::ToolEnded {
            tool_call_id: id,
            tool_name: "t".into(),
            result,
            is_error
        }),
        ".{0,40}".prop_map(|t| Payload::MessageAppended { message: ModelMessage::text(Role::User, t) }),
        (any::<u32>(), any::<u32>()).prop_map(|(a, b)| Payload::OutputTokensEscalation { attempt: 1, prev_cap: a.into(), new_cap: b.into() }),
        ("[a-z]{1,8}", arb_json()).prop_map(|(name, data)| Payload::Custom { name, data }),
        Just(Payload::TurnStarted { turn_index: Some(3) }),
    ]
}

proptest! {
    #[test]
    fn round_trip_records_jsonl_parse_identical(payloads in prop::collection::vec(arb_payload(), 0..30), t in 0u64..4_000_000_000_000) {
        let mut rec = Recorder::new(Some("run".into()));
        let records: Vec<_> = payloads.into_iter().map(|p| rec.stamp(p, t as f64).unwrap()).collect();
        let text = jsonl::serialize(&records);
        let back = jsonl::parse(&text).unwrap();
        prop_assert_eq!(&back, &records);
        prop_assert_eq!(jsonl::serialize(&back), text);
    }

    #[test]
    fn seq_is_dense_per_run_and_delivery_keeps_it(settle_order in prop::collection::vec(any::<bool>(), 1..60)) {
        // Interleave a parent and a child through one dispatcher; each step
        // either records (alternating runs) or settles the delivery in flight.
        let mut parent = Recorder::new(Some("p".into()));
        let mut child = parent.child(Some("c".into())).unwrap();
        let mut d = Dispatcher::new(SinkPolicy::Drop);
        let mut in_flight = None;
        let mut seen = Vec::new();
        for (i, record_now) in settle_order.iter().enumerate() {
            if *record_now || in_flight.is_none() {
                let r = if i % 2 == 0 { &mut parent } else { &mut child }.stamp(tool(i as u64), 0.0).unwrap();
                if let Some(now) = d.submit(r).unwrap() { in_flight = Some(now); }
            } else if let Some(r) = in_flight.take() {
                seen.push(r.clone());
                in_flight = d.settle(r, Ok(())).next;
            }
        }
        while let Some(r) = in_flight.take() {
            seen.push(r.clone());
            in_flight = d.settle(r, Ok(())).next;
        }
        for run in ["p", "c"] {
            let seqs: Vec<u64> = seen.iter().filter(|r| r.run_id.as_deref() == Some(run)).map(|r| r.seq).collect();
            prop_assert_eq!(seqs.clone(), (0..seqs.len() as u64).collect::<Vec<_>>());
        }
    }
}

#[test]
fn seq_gaps_name_the_run_and_the_missing_seq() {
    let mut rec = Recorder::new(Some("r".into()));
    let lines: Vec<String> = (0..4).map(|i| rec.stamp(tool(i), 1.0).unwrap().to_json()).collect();
    let gap = format!("{}\n{}\n{}\n", lines[0], lines[2], lines[3]);
    let e = jsonl::parse(&gap).unwrap_err();
    assert_eq!((e.code, e.line), (ErrorCode::SeqGap, Some(2)));
    assert_eq!(e.message, "line 2: run \"r\" jumps from seq 0 to 2: seq 1 is missing");
    // Lenient: listed once, every record kept.
    let (good, bad) = jsonl::parse_lenient(&gap);
    assert_eq!(good.len(), 3);
    assert_eq!(bad.iter().map(|b| (b.line, b.code)).collect::<Vec<_>>(), vec![(2, "SEQ_GAP")]);
    let e = jsonl::parse(&format!("{}\n", lines[3])).unwrap_err();
    assert_eq!(e.message, "line 1: run \"r\" starts at seq 3: seqs 0 to 2 are missing");
    let e = jsonl::parse(&format!("{}\n{}\n{}\n", lines[0], lines[1], lines[1])).unwrap_err();
    assert_eq!(e.message, "line 3: run \"r\" repeats or goes back to seq 1 after seq 1");

    // Interleaved child runs and records stamped before the run was named are no gaps.
    let mut parent = Recorder::new(None);
    let mut out = vec![parent.stamp(Payload::TurnStarted { turn_index: None }, 1.0).unwrap()];
    out.push(parent.stamp(started("p"), 1.0).unwrap());
    let mut child = parent.child(Some("c".into())).unwrap();
    out.push(child.stamp(tool(1), 1.0).unwrap());
    out.push(parent.stamp(tool(2), 1.0).unwrap());
    out.push(child.stamp(tool(3), 1.0).unwrap());
    assert_eq!(jsonl::parse(&jsonl::serialize(&out)).unwrap(), out);
}

#[test]
fn integers_past_the_exact_js_range_are_refused_where_they_enter() {
    for line in [
        r#"{"schema_version":1,"seq":18446744073709551615,"depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started"}}"#,
        r#"{"schema_version":1,"seq":0,"depth":0,"recorded_at_unix_ms":9007199254740992,"payload":{"kind":"turn_started"}}"#,
        r#"{"schema_version":1,"seq":0,"depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"turn_started","turn_index":9007199254740992}}"#,
        r#"{"schema_version":1,"seq":0,"depth":0,"recorded_at_unix_ms":1,"payload":{"kind":"output_tokens_escalation","attempt":1,"prev_cap":1,"new_cap":1e300}}"#,
    ] {
        let e = jsonl::parse(line).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRecord, "{line}: {}", e.message);
    }
    let mut rec = Recorder::new(None);
    for t in [1e300, 9.1e15, f64::NAN] {
        assert_eq!(rec.stamp(tool(1), t).unwrap_err().code, ErrorCode::CallbackFailed);
    }
    assert_eq!(rec.next_seq(), 0, "a refused stamp changes nothing");
}

/// Every payload kind as the Rust agent runtime the format comes from writes
/// it (`run_ended.outcome` a bare label, gates' `allow` lists of tool names),
/// beside this package's own shapes: all read, and all written back as read.
#[test]
fn reads_what_the_original_runtime_writes_and_keeps_it() {
    let head = |seq: u32, kind: &str| {
        format!(r#"{{"schema_version":1,"seq":{seq},"run_id":"orig","depth":0,"recorded_at_unix_ms":1700000000000,"payload":{{"kind":"{kind}""#)
    };
    let payloads = [
        ("run_started", r#","identity":{"run_id":"orig","agent":"coder","model_id":"m-1"}}}"#),
        ("turn_started", r#","turn_index":0}}"#),
        ("message_appended", r#","message":{"role":"user","content":"fix the build"}}}"#),
        (
            "provider_request_prepared",
            r#","iteration":0,"model_id":"m-1","system_prompt_chars":1200,"message_count":3,"tool_count":2,"tools":["read","write"]}}"#,
        ),
        ("context_transform_applied", r#","iteration":0,"plugin":"compact","before_count":40,"after_count":12}}"#),
        ("tool_gate_applied", r#","iteration":0,"plugin":"readonly","allow":["read","grep"]}}"#),
        ("tool_gate_applied", r#","iteration":1,"plugin":"noop"}}"#),
        ("tool_gate_applied", r#","iteration":2,"plugin":"ours","allow":false}}"#),
        (
            "tool_gate_conflict_resolved",
            r#","iteration":0,"plugins":["readonly","budget"],"chosen_plugin":"readonly","allow":["read"],"reason":"most restrictive"}}"#,
        ),
        ("tool_gate_conflict_resolved", r#","iteration":1,"plugins":["a","b"],"allow":true,"reason":"ours"}}"#),
        ("tool_started", r#","tool_call_id":"c1","tool_name":"read","args":{"path":"a.rs"}}}"#),
        ("tool_ended", r#","tool_call_id":"c1","tool_name":"read","result":"fn main() {}","is_error":false}}"#),
        ("output_tokens_escalation", r#","attempt":1,"prev_cap":4096,"new_cap":8192}}"#),
        ("turn_ended", r#","assistant":{"role":"assistant","content":"done"},"tool_results":[]}}"#),
        ("custom", r#","name":"note","data":{"x":1}}}"#),
        ("run_ended", r#","outcome":"ended","new_messages":[]}}"#),
    ];
    let text: String = payloads.iter().enumerate().map(|(i, (k, rest))| format!("{}{rest}\n", head(i as u32, k))).collect();
    let records = jsonl::parse(&text).unwrap();
    assert_eq!(records.len(), payloads.len());
    assert_eq!(jsonl::serialize(&records), text, "every record is written back exactly as it was read");
    match &records.last().unwrap().payload {
        Payload::RunEnded { outcome: EndedOutcome::Label(l), .. } => assert_eq!(l, "ended"),
        other => panic!("{other:?}"),
    }
    let e = jsonl::parse(&format!("{}{}\n", head(0, "tool_gate_applied"), r#","iteration":0,"plugin":"p","allow":[1]}}"#)).unwrap_err();
    assert!(e.message.contains("allow[0] must be a tool name"), "{}", e.message);
    let e = jsonl::parse(&format!("{}{}\n", head(0, "run_ended"), r#","outcome":3}}"#)).unwrap_err();
    assert!(e.message.contains("outcome must be an object"), "{}", e.message);
}

#[test]
fn an_unnamed_child_run_names_itself_first() {
    let parent = Recorder::new(Some("p".into()));
    let mut child = parent.child(None).unwrap();
    let e = child.stamp(tool(1), 1.0).unwrap_err();
    assert!(e.message.contains("record run_started first, or name it with child(runId)"), "{}", e.message);
    assert_eq!(child.next_seq(), 0);
    let started = child.stamp(started("c"), 1.0).unwrap();
    assert_eq!((started.run_id.as_deref(), started.parent_run_id.as_deref(), started.depth), (Some("c"), Some("p"), 1));
    assert!(child.stamp(tool(2), 1.0).is_ok());
}

#[test]
fn the_runs_of_one_recorder_have_their_own_ids() {
    // They share a sink: two with one id would be one run to a reader, with its seq repeating.
    let mut parent = Recorder::new(None);
    parent.stamp(started("p"), 1.0).unwrap();
    let e = parent.child(Some("p".into())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(e.message.starts_with("child(): run id \"p\" is already used by another run of this recorder"), "{}", e.message);
    let child = parent.child(Some("k".into())).unwrap();
    assert!(parent.child(Some("k".into())).is_err(), "a sibling's id");
    assert!(child.child(Some("p".into())).is_err(), "an ancestor's id, at any depth");
    // An unnamed child that names itself takes a free id only.
    let mut unnamed = parent.child(None).unwrap();
    let e = unnamed.stamp(started("k"), 1.0).unwrap_err();
    assert!(e.message.starts_with("run_started: run id \"k\" is already used"), "{}", e.message);
    assert_eq!(unnamed.next_seq(), 0, "nothing stamped");
    assert_eq!(unnamed.stamp(started("u"), 1.0).unwrap().run_id.as_deref(), Some("u"));
    // Another recorder (another tree) is not this one's concern.
    assert!(Recorder::new(Some("p".into())).child(Some("k".into())).is_ok());
}

#[test]
fn a_byte_order_mark_is_not_part_of_line_one() {
    let mut rec = Recorder::new(Some("r".into()));
    let line = rec.stamp(tool(1), 1.0).unwrap().to_json();
    assert_eq!(jsonl::parse(&format!("\u{feff}{line}\n")).unwrap().len(), 1);
}
