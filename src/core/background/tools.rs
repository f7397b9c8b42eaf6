//! The built-in tools of a background run: the plan tools, the VFS tools
//! and `finish`. Their specs go to the model with the caller's tools; their
//! calls run here, against the run's plan and filesystem. A bad argument is
//! a failed call the model sees (coded, saying which argument), never a crash.

use serde_json::{Map, Value};

use super::plan::{Plan, StepStatus};
use crate::error::{Error, Result};
use crate::host::ToolSpec;
use crate::message::kind_of;
use crate::number::quoted;
use crate::options::check_keys;
use crate::vfs::Vfs;

/// The name of the tool that ends the run.
pub const FINISH: &str = "finish";

/// Every built-in name, which a caller's tool may not take.
pub const BUILTIN: &[&str] =
    &["plan_create", "plan_add_step", "plan_update_step", "plan_reset", "ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm", FINISH];

/// A caller's tool name: one models accept (1 to 64 of a-z, A-Z, 0-9, `_`
/// and `-`) and none of the runner's own.
pub fn check_tool_name(name: &str) -> Result<()> {
    let accepted = (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !accepted {
        return Err(Error::invalid_argument(format!(
            "tools: the name {} is not a tool name models accept (1 to 64 of a-z, A-Z, 0-9, _ and -)",
            crate::write::json(name)
        )));
    }
    if BUILTIN.contains(&name) {
        return Err(Error::invalid_argument(format!("tools.{name}: {name} is a built-in tool of the runner; give yours another name")));
    }
    Ok(())
}

/// Most lines `grep` returns, and most entries `ls` / `glob` list.
const MAX_LISTED: usize = 200;

/// The built-ins' specs as JSON text: one parse at run start costs far less
/// module size than building the same values in code.
const SPECS: &str = r#"[
["plan_create","Create the plan: the steps to reach the objective, in order.",{"steps":{"type":"array","items":{"type":"string"},"minItems":1}},["steps"]],
["plan_add_step","Add a step at the end of the plan.",{"title":{"type":"string"}},["title"]],
["plan_update_step","Set a step's status and/or add a note (a finding) to it. Steps are numbered from 1.",{"step":{"type":"integer","minimum":1},"status":{"type":"string","enum":["pending","in_progress","done"]},"note":{"type":"string"}},["step"]],
["plan_reset","Drop the plan, to create a new one.",{},[]],
["ls","List a directory of the virtual filesystem (default: the root).",{"path":{"type":"string"}},[]],
["read_file","Read a file: lines offset.. (from 0), at most limit of them.",{"path":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0}},["path"]],
["write_file","Write a whole file.",{"path":{"type":"string"},"content":{"type":"string"}},["path","content"]],
["edit_file","Replace the one exact occurrence of old with new in a file.",{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},["path","old","new"]],
["glob","Paths matching a pattern (* within a name, ** across directories, ? one character).",{"pattern":{"type":"string"}},["pattern"]],
["grep","Lines containing a text (plain, not a pattern) in the files under path.",{"text":{"type":"string"},"path":{"type":"string"}},["text"]],
["rm","Delete a file.",{"path":{"type":"string"}},["path"]],
["finish","End the run: completed (the objective is met) or abandoned (it cannot be), with a short summary.",{"status":{"type":"string","enum":["completed","abandoned"]},"summary":{"type":"string"}},["status","summary"]]
]"#;

/// The built-in specs; `plan_reset` only when resets are allowed, and
/// `finish` with a `deliverable` argument when the objective has a schema.
pub fn specs(allow_reset: bool, deliverable: Option<&Value>) -> Vec<ToolSpec> {
    // Read as a Value and taken apart by hand: a typed read (tuples) would
    // link serde's type-mismatch messages, and with them float printing.
    let Ok(Value::Array(rows)) = serde_json::from_str::<Value>(SPECS) else { unreachable!("the built-in specs are a JSON array") };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Value::Array(row) = row else { unreachable!("each built-in spec is an array") };
        let [Value::String(name), Value::String(description), mut properties, mut required] =
            <[Value; 4]>::try_from(row).unwrap_or_else(|_| unreachable!("each built-in spec has four items"))
        else {
            unreachable!("a built-in spec starts with its name and description")
        };
        if name == "plan_reset" && !allow_reset {
            continue;
        }
        if let (FINISH, Some(schema), Value::Object(props), Value::Array(req)) = (name.as_str(), deliverable, &mut properties, &mut required) {
            props.insert("deliverable".into(), schema.clone());
            req.push("deliverable".into());
        }
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), properties);
        schema.insert("required".into(), required);
        schema.insert("additionalProperties".into(), false.into());
        out.push(ToolSpec { name, description, input_schema: Value::Object(schema) });
    }
    out
}

/// What a call of a built-in produced: its result, and whether it found
/// nothing (an empty listing or search), which reflection looks at.
#[derive(Debug)]
pub struct Done {
    pub result: Value,
    pub empty: bool,
}

fn done(text: String) -> Done {
    Done { empty: false, result: Value::String(text) }
}

fn listing(items: Vec<String>, none: &str) -> Done {
    if items.is_empty() {
        return Done { empty: true, result: Value::String(none.to_owned()) };
    }
    let more = items.len().saturating_sub(MAX_LISTED);
    let mut text = items.into_iter().take(MAX_LISTED).collect::<Vec<_>>().join("\n");
    if more > 0 {
        text.push_str(&format!("\n... and {more} more"));
    }
    done(text)
}

/// A call's arguments, read with errors that name the tool and the argument.
pub struct Args<'a> {
    tool: &'a str,
    obj: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    pub fn new(tool: &'a str, input: &'a Value, allowed: &[&str]) -> Result<Args<'a>> {
        let obj = input.as_object().ok_or_else(|| Error::invalid_argument(format!("{tool}: arguments must be an object, got {}", kind_of(input))))?;
        check_keys(obj.keys().map(String::as_str), allowed, &format!("{tool} arguments"))?;
        Ok(Args { tool, obj })
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(Error::invalid_argument(format!("{}: {key} must be a string, got {}", self.tool, kind_of(v)))),
        }
    }

    pub fn str(&self, key: &str) -> Result<&'a str> {
        self.opt_str(key)?.ok_or_else(|| Error::invalid_argument(format!("{}: {key} is required", self.tool)))
    }

    pub fn opt_count(&self, key: &str) -> Result<Option<u64>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            // The core's rule for a count from JS (0 to 2^53 - 1), worded with the tool's name.
            Some(v) => match v.as_f64() {
                Some(n) => crate::number::safe_count(n, &format!("{}: {key}", self.tool)).map(Some),
                None => Err(Error::invalid_argument(format!(
                    "{}: {key} must be a whole number from 0 to {}, got {}",
                    self.tool,
                    crate::number::MAX_SAFE_INTEGER,
                    crate::write::json(v)
                ))),
            },
        }
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key)
    }
}

/// What the built-ins act on.
pub struct Workspace<'a> {
    pub plan: &'a mut Option<Plan>,
    pub vfs: &'a mut Vfs,
    pub allow_reset: bool,
}

fn no_plan() -> Error {
    Error::invalid_argument("there is no plan yet; create one with plan_create")
}

/// Runs built-in `name` (not `finish`, which the loop handles); `None`
/// when `name` is not a built-in.
pub fn call(name: &str, input: &Value, ws: &mut Workspace<'_>) -> Option<Result<Done>> {
    let usize_of = |n: Option<u64>| n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let run = || -> Result<Done> {
        match name {
            "plan_create" => {
                let a = Args::new(name, input, &["steps"])?;
                if ws.plan.is_some() {
                    let how = if ws.allow_reset { "plan_reset it first, or use plan_add_step" } else { "use plan_add_step" };
                    return Err(Error::invalid_argument(format!("plan_create: a plan exists; {how}")));
                }
                let steps = match a.get("steps") {
                    Some(Value::Array(s)) => s
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            t.as_str().map(str::to_owned).ok_or_else(|| Error::invalid_argument(format!("plan_create: steps[{i}] must be a string")))
                        })
                        .collect::<Result<Vec<_>>>()?,
                    _ => return Err(Error::invalid_argument("plan_create: steps must be an array of step titles")),
                };
                let plan = Plan::new(&steps).map_err(|e| e.within("plan_create"))?;
                let n = plan.steps.len();
                *ws.plan = Some(plan);
                Ok(done(format!("plan created with {n} steps")))
            }
            "plan_add_step" => {
                let title = Args::new(name, input, &["title"])?.str("title")?;
                let n = ws.plan.as_mut().ok_or_else(no_plan)?.add(title).map_err(|e| e.within(name))?;
                Ok(done(format!("added step {n}")))
            }
            "plan_update_step" => {
                let a = Args::new(name, input, &["step", "status", "note"])?;
                let step = a.opt_count("step")?.ok_or_else(|| Error::invalid_argument("plan_update_step: step is required"))?;
                let status = match a.opt_str("status")? {
                    None => None,
                    Some(s) => Some(StepStatus::parse(s).ok_or_else(|| {
                        Error::invalid_argument(format!("plan_update_step: status must be pending, in_progress or done, got {s}", s = quoted(s)))
                    })?),
                };
                let note = a.opt_str("note")?;
                ws.plan.as_mut().ok_or_else(no_plan)?.update(step, status, note).map_err(|e| e.within(name))?;
                Ok(done(format!("step {step} updated")))
            }
            "plan_reset" if ws.allow_reset => {
                Args::new(name, input, &[])?;
                ws.plan.take().ok_or_else(no_plan)?;
                Ok(done("plan dropped; create a new one with plan_create".into()))
            }
            "ls" => {
                let a = Args::new(name, input, &["path"])?;
                Ok(listing(ws.vfs.ls(a.opt_str("path")?.unwrap_or(""))?, "(empty)"))
            }
            "read_file" => {
                let a = Args::new(name, input, &["path", "offset", "limit"])?;
                let text = ws.vfs.read(a.str("path")?, usize_of(a.opt_count("offset")?).unwrap_or(0), usize_of(a.opt_count("limit")?))?;
                Ok(Done { empty: text.is_empty(), result: Value::String(text) })
            }
            "write_file" => {
                let a = Args::new(name, input, &["path", "content"])?;
                let (path, content) = (a.str("path")?, a.str("content")?);
                ws.vfs.write(path, content)?;
                Ok(done(format!("wrote {path} ({} bytes)", content.len())))
            }
            "edit_file" => {
                let a = Args::new(name, input, &["path", "old", "new"])?;
                let path = a.str("path")?;
                ws.vfs.edit(path, a.str("old")?, a.str("new")?)?;
                Ok(done(format!("edited {path}")))
            }
            "glob" => {
                let a = Args::new(name, input, &["pattern"])?;
                Ok(listing(ws.vfs.glob(a.str("pattern")?)?, "no files match"))
            }
            "grep" => {
                let a = Args::new(name, input, &["text", "path"])?;
                Ok(listing(ws.vfs.grep(a.str("text")?, a.opt_str("path")?.unwrap_or(""), MAX_LISTED + 1)?, "no matches"))
            }
            "rm" => {
                let path = Args::new(name, input, &["path"])?.str("path")?;
                ws.vfs.rm(path)?;
                Ok(done(format!("removed {path}")))
            }
            _ => unreachable!("checked below"),
        }
    };
    let known = BUILTIN.contains(&name) && name != FINISH && (name != "plan_reset" || ws.allow_reset);
    known.then(run)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tool_name_is_one_models_accept_and_not_the_runners() {
        assert!(super::check_tool_name("search_docs-2").is_ok());
        let e = super::check_tool_name("has space").unwrap_err();
        assert_eq!(e.message, "tools: the name \"has space\" is not a tool name models accept (1 to 64 of a-z, A-Z, 0-9, _ and -)");
        assert!(super::check_tool_name("").is_err());
        assert!(super::check_tool_name(&"a".repeat(65)).is_err());
        assert!(super::check_tool_name("ls").unwrap_err().message.starts_with("tools.ls: ls is a built-in tool of the runner"));
    }

    use super::*;
    use crate::error::ErrorCode;
    use crate::vfs::VfsLimits;
    use serde_json::json;

    #[test]
    fn plan_and_files() {
        let mut plan = None;
        let mut vfs = Vfs::new(VfsLimits::default());
        vfs.mount("diff", &[("a.rs".into(), "fn a() {}".into())]).unwrap();
        let mut ws = Workspace { plan: &mut plan, vfs: &mut vfs, allow_reset: false };
        let ok = |r: Option<Result<Done>>| r.unwrap().unwrap().result;
        assert_eq!(ok(call("plan_create", &json!({ "steps": ["map", "check"] }), &mut ws)), "plan created with 2 steps");
        let e = call("plan_create", &json!({ "steps": ["x"] }), &mut ws).unwrap().unwrap_err();
        assert!(e.message.contains("use plan_add_step"), "{}", e.message);
        assert!(call("plan_reset", &json!({}), &mut ws).is_none(), "no reset unless allowed");
        ok(call("plan_update_step", &json!({ "step": 1, "status": "done", "note": "1 file" }), &mut ws));
        assert_eq!(ok(call("read_file", &json!({ "path": "diff/a.rs" }), &mut ws)), "fn a() {}");
        let e = call("read_file", &json!({ "path": "../etc/passwd" }), &mut ws).unwrap().unwrap_err();
        assert_eq!(e.code, ErrorCode::VfsPath);
        let e = call("read_file", &json!({ "pat": "x" }), &mut ws).unwrap().unwrap_err();
        assert!(e.message.contains("did you mean \"path\""), "{}", e.message);
        let g = call("glob", &json!({ "pattern": "*.md" }), &mut ws).unwrap().unwrap();
        assert!(g.empty);
        assert!(call("finish", &json!({}), &mut ws).is_none());
        assert!(call("nope", &json!({}), &mut ws).is_none());
        assert_eq!(specs(true, None).len(), BUILTIN.len());
        let with = specs(false, Some(&json!({ "type": "object" })));
        assert_eq!(with.last().unwrap().input_schema["required"], json!(["status", "summary", "deliverable"]));
    }
}
