//! The binding in a real JS engine: Node by default, headless Chromium with
//! `WASM_BINDGEN_USE_BROWSER=1` (scripts/test.sh runs both).
#![cfg(target_arch = "wasm32")]

use std::future::Future;

use agent_trajectories::wasm::capture::{parse_trajectory_jsonl, JsonlSink, MemorySink, TrajectoryRecorder};
use agent_trajectories::wasm::message::normalize_messages_js;
use agent_trajectories::wasm::types::RecorderOptions;
use agent_trajectories::wasm::waiting::{Deadlines, Settled};
use js_sys::{Array, Function, JsString, Object, Promise, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

fn js(src: &str) -> JsValue {
    JSON::parse(src).expect("test JSON")
}

fn opts(pairs: &[(&str, JsValue)]) -> Option<RecorderOptions> {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    Some(o.unchecked_into())
}

fn get(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &k.into()).unwrap()
}

fn code_of(e: &JsValue) -> String {
    assert!(e.is_instance_of::<js_sys::Error>(), "a real Error");
    assert_eq!(get(e, "name").as_string().unwrap(), "AgentTrajectoriesError");
    get(e, "code").as_string().unwrap()
}

fn call(obj: &JsValue, method: &str) -> JsValue {
    get(obj, method).unchecked_into::<Function>().call0(obj).unwrap()
}

fn clock_from(start: f64) -> JsValue {
    Function::new_with_args("", &format!("return this.t = (this.t ?? {start}) + 1;")).bind0(&Object::new()).into()
}

#[wasm_bindgen_test]
fn memory_sink_gets_stamped_records_in_order() {
    let sink: JsValue = MemorySink::new().into();
    let rec = TrajectoryRecorder::new(sink.clone(), opts(&[("clock", clock_from(1000.0))])).unwrap();
    rec.record(js(r#"{"kind":"run_started","identity":{"run_id":"r1"}}"#)).unwrap();
    let seq = rec
        .record(js(r#"{"kind":"message_appended","message":{"role":"assistant","content":[{"type":"tool-call","id":"c","name":"ls","args":{}}]}}"#))
        .unwrap();
    assert_eq!(seq, 1.0);
    let records: Array = call(&sink, "records").unchecked_into();
    assert_eq!(records.length(), 2);
    let second = records.get(1);
    assert_eq!(get(&second, "recorded_at_unix_ms").as_f64(), Some(1002.0));
    assert_eq!(get(&second, "run_id").as_string().as_deref(), Some("r1"));
    let part = Reflect::get(&get(&get(&get(&second, "payload"), "message"), "content"), &0.into()).unwrap();
    assert_eq!(get(&part, "toolCallId").as_string().as_deref(), Some("c"), "shorthand normalised");
}

#[wasm_bindgen_test]
fn bad_payload_is_a_coded_error_and_records_nothing() {
    let sink: JsValue = JsonlSink::new(None).unwrap().into();
    let rec = TrajectoryRecorder::new(sink.clone(), None).unwrap();
    let err = rec.record(js(r#"{"kind":"tool_ended","tool_call_id":"x"}"#)).unwrap_err();
    assert_eq!(code_of(&err), "INVALID_RECORD");
    assert!(get(&err, "message").as_string().unwrap().contains("missing field \"payload.tool_name\""));
    assert_eq!(rec.next_seq(), 0.0);
    assert_eq!(get(&sink, "length").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
fn throwing_clock_is_a_callback_error() {
    let clock = Function::new_no_args("throw new Error('no time')");
    let rec = TrajectoryRecorder::new(MemorySink::new().into(), opts(&[("clock", clock.into())])).unwrap();
    let err = rec.record(js(r#"{"kind":"turn_started"}"#)).unwrap_err();
    assert_eq!(code_of(&err), "CALLBACK_FAILED");
    assert!(get(&err, "message").as_string().unwrap().contains("clock threw: no time"));
}

#[wasm_bindgen_test]
fn js_sink_sync_throw_under_fail_policy_surfaces() {
    let sink = js("{}");
    let f = Function::new_with_args("r", "if (r.seq === 1) throw new Error('full'); (this.seen ??= []).push(r.seq);");
    Reflect::set(&sink, &"record".into(), &f).unwrap();
    let rec = TrajectoryRecorder::new(sink.clone(), opts(&[("onSinkError", "fail".into())])).unwrap();
    rec.record(js(r#"{"kind":"turn_started"}"#)).unwrap();
    let err = rec.record(js(r#"{"kind":"turn_started"}"#)).unwrap_err();
    assert_eq!(code_of(&err), "SINK_FAILED");
    assert_eq!(code_of(&rec.record(js(r#"{"kind":"turn_started"}"#)).unwrap_err()), "SINK_FAILED");
    let undelivered: Array = rec.undelivered().unwrap().unchecked_into();
    assert_eq!(get(&undelivered.get(0), "seq").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn async_sink_keeps_order_and_drop_policy_reports() {
    let sink = js("{\"seen\":[]}");
    let f = Function::new_with_args(
        "r",
        "return new Promise((ok, no) => setTimeout(() => r.seq === 2 ? no(new Error('flaky')) : (this.seen.push(r.seq), ok()), (7 - r.seq) % 3));",
    );
    Reflect::set(&sink, &"record".into(), &f).unwrap();
    let errors = Array::new();
    let on_error = Function::new_with_args("e, r", "this.push([e.code, r.seq])").bind0(&errors);
    let rec = TrajectoryRecorder::new(sink.clone(), opts(&[("onError", on_error.into())])).unwrap();
    for _ in 0..6 {
        rec.record(js(r#"{"kind":"turn_started"}"#)).unwrap();
    }
    JsFuture::from(rec.flush()).await.unwrap();
    assert_eq!(JSON::stringify(&get(&sink, "seen")).unwrap(), JsString::from("[0,1,3,4,5]"));
    assert_eq!(JSON::stringify(&errors).unwrap(), JsString::from("[[\"SINK_FAILED\",2]]"));
    assert_eq!(rec.dropped(), 1.0);
}

#[wasm_bindgen_test]
fn child_recorder_shares_sink_with_its_own_seq() {
    let sink: JsValue = MemorySink::new().into();
    let rec = TrajectoryRecorder::new(sink.clone(), opts(&[("runId", "p".into())])).unwrap();
    rec.record(js(r#"{"kind":"turn_started"}"#)).unwrap();
    let child = rec.child(Some("c".into())).unwrap();
    assert_eq!(child.record(js(r#"{"kind":"turn_started"}"#)).unwrap(), 0.0);
    assert_eq!((child.depth(), child.parent_run_id().as_deref()), (1, Some("p")));
    assert_eq!(get(&sink, "length").as_f64(), Some(2.0));
}

#[wasm_bindgen_test]
fn jsonl_parse_errors_carry_the_line() {
    let err = parse_trajectory_jsonl(
        "{\"seq\":0,\"recorded_at_unix_ms\":1,\"payload\":{\"kind\":\"turn_started\"}}\n\nnot json\n".into(),
        JsValue::UNDEFINED,
    )
    .unwrap_err();
    assert_eq!(code_of(&err), "JSONL_PARSE");
    assert_eq!(get(&err, "line").as_f64(), Some(3.0));
    let newer = parse_trajectory_jsonl("{\"schema_version\":9,\"seq\":0}".into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(code_of(&newer), "UNSUPPORTED_SCHEMA_VERSION");
    let lenient = parse_trajectory_jsonl("x\n".into(), js("{\"lenient\":true}")).unwrap();
    assert_eq!(Array::from(&get(&lenient, "errors")).length(), 1);
}

#[wasm_bindgen_test]
fn messages_normalise_or_name_the_index() {
    let out = normalize_messages_js(js(r#"[{"role":"tool","content":[{"type":"tool-result","id":"c","name":"ls","result":"ok"}]}]"#)).unwrap();
    let part = Reflect::get(&get(&Reflect::get(&out, &0.into()).unwrap(), "content"), &0.into()).unwrap();
    assert_eq!(JSON::stringify(&get(&part, "output")).unwrap(), JsString::from(r#"{"type":"text","value":"ok"}"#));
    let err = normalize_messages_js(js(r#"[{"role":"user","content":"a"},{"role":"x","content":"b"}]"#)).unwrap_err();
    assert_eq!(code_of(&err), "INVALID_MESSAGE");
    assert!(get(&err, "message").as_string().unwrap().starts_with("messages[1]:"));
}

/// A pending Promise and the function that resolves it.
fn deferred() -> (Promise, Function) {
    let mut resolve = None;
    let promise = Promise::new(&mut |ok, _| resolve = Some(ok));
    (promise, resolve.expect("the executor runs at once"))
}

#[wasm_bindgen_test]
async fn a_wait_gets_what_its_own_promise_settled_with() {
    assert_eq!(Settled::of(&Promise::resolve(&JsValue::from("one"))).await.unwrap(), "one");
    assert_eq!(Settled::of(&Promise::reject(&JsValue::from("no"))).await.unwrap_err(), "no");
    // A wait dropped before its promise settles (as after a deadline) leaves
    // its slot to the next wait: the late settlement must not reach that one.
    let (late, resolve_late) = deferred();
    drop(Settled::of(&late));
    let (mine, resolve_mine) = deferred();
    let waiting = Settled::of(&mine);
    resolve_late.call1(&JsValue::UNDEFINED, &"late".into()).unwrap();
    Deadlines::new().after(5).await;
    resolve_mine.call1(&JsValue::UNDEFINED, &"mine".into()).unwrap();
    assert_eq!(waiting.await.unwrap(), "mine");
}

#[wasm_bindgen_test]
async fn a_sleep_ends_after_its_time_and_a_dropped_one_never_fires() {
    let deadlines = Deadlines::new();
    let start = js_sys::Date::now();
    deadlines.after(20).await;
    assert!(js_sys::Date::now() - start >= 15.0, "slept about 20 ms");
    // Dropped, it is forgotten and its slot goes to the next wait, which
    // must still be waiting after the dropped one's time.
    drop(deadlines.after(1));
    let (never, _resolve) = deferred();
    let mut pending = Settled::of(&never);
    deadlines.after(10).await;
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(std::pin::Pin::new(&mut pending).poll(&mut cx).is_pending());
}

#[wasm_bindgen_test]
async fn a_runs_deadlines_share_a_timer_and_each_ends_at_its_own_time() {
    let deadlines = Deadlines::new();
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let start = js_sys::Date::now();
    // A later deadline first, then an earlier one: the timer is set again
    // for the earlier, and the later still ends after its own time.
    let mut late = deadlines.after(60);
    assert!(std::pin::Pin::new(&mut late).poll(&mut cx).is_pending());
    deadlines.after(10).await;
    let early = js_sys::Date::now() - start;
    assert!((8.0..55.0).contains(&early), "the 10 ms deadline ended after {early} ms");
    assert!(std::pin::Pin::new(&mut late).poll(&mut cx).is_pending(), "the 60 ms deadline ended with the 10 ms one");
    late.await;
    assert!(js_sys::Date::now() - start >= 55.0, "the 60 ms deadline ended early");
    // Dropping the earliest leaves the next to end at its time.
    let first = deadlines.after(5);
    let second = deadlines.after(15);
    drop(first);
    let t = js_sys::Date::now();
    second.await;
    assert!(js_sys::Date::now() - t >= 12.0, "the 15 ms deadline ended early");
}
