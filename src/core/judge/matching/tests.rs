use super::*;
use serde_json::json;

fn call(name: &str, args: Value) -> Call {
    Call { name: name.into(), args, ok: Some(true), turn: None }
}

fn run(actual: &[Call], expected: Value, opts: Value) -> MatchResult {
    let e = read_expected(&expected, "expected").unwrap();
    let o = MatchOptions::read(&opts, &[], "options").unwrap();
    match_calls(actual, &e, &o, "options", &mut |_, _, _, _| unreachable!()).unwrap()
}

fn calls() -> Vec<Call> {
    vec![call("search", json!({ "q": "Paris", "n": 1 })), call("weather", json!({ "city": "Paris" })), call("book", json!({ "city": "Paris" }))]
}

#[test]
fn strict_wants_the_same_calls_in_order() {
    let r = run(&calls(), json!(["search", "weather", "book"]), Value::Null);
    assert!(r.pass, "{}", r.message);
    assert_eq!((r.score, r.matched), (1.0, 3));
    let r = run(&calls(), json!(["search", { "toolName": "book", "input": { "city": "Paris" } }]), Value::Null);
    assert!(!r.pass);
    assert_eq!(r.mismatches.iter().map(|m| m.kind).collect::<Vec<_>>(), ["different", "unexpected"]);
    assert_eq!(r.mismatches[0].message, r#"call 2: expected book({"city":"Paris"}), got weather({"city":"Paris"})"#);
    assert_eq!(r.message.lines().next().unwrap(), "the calls do not match (strict, score 0.333): 1 of 3 matched");
}

#[test]
fn an_args_tool_a_slip_from_a_called_one_is_refused() {
    let (e, c) = (read_expected(&json!(["search"]), "expected").unwrap(), calls());
    let opts = |args: Value| MatchOptions::read(&json!({ "args": args }), &[], "options").unwrap();
    let typo = match_calls(&c, &e, &opts(json!({ "serach": "ignore" })), "options", &mut |_, _, _, _| unreachable!()).unwrap_err();
    assert_eq!(typo.message, r#"options.args["serach"]: no call is to tool "serach"; did you mean "search"?"#);
    // A tool no call names, and no slip from one: one options object may serve many runs.
    assert!(match_calls(&c, &e, &opts(json!({ "translate": "ignore" })), "options", &mut |_, _, _, _| unreachable!()).is_ok());
}

#[test]
fn in_order_allows_calls_between_and_names_the_nearest() {
    let r = run(&calls(), json!(["search", "book"]), json!({ "mode": "in-order" }));
    assert!(r.pass, "{}", r.message);
    let r = run(&calls(), json!([{ "toolName": "search", "input": { "q": "paris", "n": 1 } }, "book"]), json!({ "mode": "in-order" }));
    assert!(!r.pass);
    assert_eq!(r.score, 0.5);
    assert_eq!(r.mismatches[0].nearest, Some(0));
    assert_eq!(
        r.mismatches[0].message,
        r#"expected call 1 search({"q":"paris","n":1}) was not made; nearest: call 1 search({"q":"Paris","n":1}) (argument q: expected "paris", got "Paris")"#
    );
    let r = run(&calls(), json!(["book", "search"]), json!({ "mode": "in-order" }));
    assert_eq!((r.pass, r.matched), (false, 1), "order matters");
}

#[test]
fn unordered_subset_and_superset_count_calls() {
    let r = run(&calls(), json!(["book", "search", "weather"]), json!({ "mode": "unordered" }));
    assert!(r.pass);
    let r = run(&calls(), json!(["book", "search", "search"]), json!({ "mode": "unordered" }));
    assert_eq!(
        r.mismatches.iter().map(|m| (m.kind, m.expected_index, m.actual_index)).collect::<Vec<_>>(),
        [("missing", Some(2), None), ("unexpected", None, Some(1))]
    );
    let r = run(&calls(), json!(["search", "weather", "book", "cancel"]), json!({ "mode": "subset" }));
    assert!(r.pass, "every call was expected");
    let r = run(&calls(), json!(["search", "book"]), json!({ "mode": "subset" }));
    assert_eq!((r.pass, r.mismatches[0].actual_index), (false, Some(1)));
    let r = run(&calls(), json!(["book", "search"]), json!({ "mode": "superset" }));
    assert!(r.pass);
    let r = run(&calls(), json!(["book", "book"]), json!({ "mode": "superset" }));
    assert_eq!((r.pass, r.score), (false, 0.5), "a call listed twice must happen twice");
}

#[test]
fn argument_modes() {
    let sub = json!([{ "toolName": "search", "input": { "q": "Paris" } }]);
    assert!(!run(&calls()[..1], sub.clone(), Value::Null).pass, "exact by default");
    assert!(run(&calls()[..1], sub.clone(), json!({ "args": "subset" })).pass);
    assert!(run(&calls()[..1], sub.clone(), json!({ "args": { "search": "subset" } })).pass);
    assert!(run(&calls()[..1], json!([{ "toolName": "search", "input": 1 }]), json!({ "args": "ignore" })).pass);
    assert!(run(&[call("t", json!({ "a": 1.0 }))], json!([{ "toolName": "t", "input": { "a": 1 } }]), Value::Null).pass, "numbers by value");
    let e = read_expected(&sub, "expected").unwrap();
    let o = MatchOptions::read(&json!({ "args": { "search": null } }), &["search".into()], "options").unwrap();
    let mut asked = 0;
    let r = match_calls(&calls(), &e, &o, "options", &mut |tool, what, _, a| {
        asked += 1;
        assert_eq!((tool, what), ("search", "options.args[\"search\"]"));
        Ok(Ok(a["n"] == 1))
    })
    .unwrap();
    assert_eq!((r.pass, asked), (false, 1), "strict: the other calls are unexpected");
    let e = match_calls(&calls(), &e, &o, "options", &mut |_, _, _, _| Ok(Err("3".into()))).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::CallbackFailed, "options.args[\"search\"] must return true or false, returned 3"));
}

#[test]
fn bad_options_say_where() {
    let e = MatchOptions::read(&json!({ "mod": "strict" }), &[], "matchTrajectory: options").unwrap_err();
    assert!(e.message.contains("mode"), "{}", e.message);
    let e = MatchOptions::read(&json!({ "mode": "loose" }), &[], "matchTrajectory: options").unwrap_err();
    assert_eq!(e.message, "matchTrajectory: options.mode must be one of 'strict', 'in-order', 'unordered', 'subset', 'superset', got \"loose\"");
    let e = read_expected(&json!([{ "tool": "x" }]), "expected").unwrap_err();
    assert!(e.message.starts_with("expected[0]: unknown option \"tool\"; did you mean \"toolName\"?"), "{}", e.message);
    let e = read_expected(&json!([3]), "expected").unwrap_err();
    assert_eq!(e.message, "expected[0] must be a tool name or { toolName, input? }, got 3");
}
