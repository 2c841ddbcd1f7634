//! The YAML configuration's sections given as Python values (`World(model, environment=
//! {...}, bodies=[...], contact={...})`): turned into a JSON document of the configuration
//! and parsed by the configuration's own types (`Config::from_yaml`, JSON being YAML), so
//! the keys, defaults, value checks and messages are exactly those of a YAML file:
//!
//! ```text
//! World: key `environment.ground.frictoin`: unknown field `frictoin`, expected one of `height`, `normal`, `friction`, `restitution`
//! ```

use crate::errors::engine;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use signorini::config::{Config, ConfigError};

/// What errors name as the "file" of the sections.
const ORIGIN: &str = "World";

/// A Python value (dict, list or tuple, str, int, float, bool, None, a path, numpy scalars
/// and arrays) as JSON; `path` is its key (`environment.boxes[0].size`), named in errors.
pub fn to_json(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        return number(obj.extract::<f64>()?, path);
    }
    if obj.is_instance_of::<PyFloat>() {
        return number(obj.extract::<f64>()?, path);
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Value::String(obj.extract()?));
    }
    if obj.hasattr("__fspath__")? {
        let os = obj.py().import("os")?;
        return to_json(&os.call_method1("fspath", (obj,))?, path);
    }
    if obj.is_instance_of::<PyDict>() || obj.cast::<PyMapping>().is_ok() {
        return mapping(obj, path);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items = obj.try_iter()?.enumerate().map(|(i, item)| to_json(&item?, &format!("{path}[{i}]")));
        return items.collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if obj.hasattr("tolist")? {
        // numpy arrays and scalars: plain Python values.
        return to_json(&obj.call_method0("tolist")?, path);
    }
    let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    Err(PyTypeError::new_err(format!(
        "{path}: a {type_name} is not a configuration value (dict, list, str, number, bool or None)"
    )))
}

/// A finite number.
fn number(x: f64, path: &str) -> PyResult<Value> {
    Number::from_f64(x).map(Value::Number).ok_or_else(|| PyValueError::new_err(format!("{path}: {x} (must be finite)")))
}

/// A mapping with string keys.
fn mapping(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Value> {
    let mut map = Map::new();
    let items = obj.call_method0("items")?;
    for item in items.try_iter()? {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let Ok(key) = key.extract::<String>() else {
            return Err(PyTypeError::new_err(format!("{path}: keys must be strings, got {key}")));
        };
        let value = to_json(&value, &format!("{path}.{key}"))?;
        map.insert(key, value);
    }
    Ok(Value::Object(map))
}

/// The sections of a world (each a Python value or absent) as a configuration: a robot
/// given elsewhere, `environment:`, `sim.bodies`, `sim.dt` and `contact:`; the defaults of
/// the YAML file for what is absent. A wrong key or value raises `signorini.Error` naming
/// it as the YAML file's error does (without its line and column, which would be the
/// JSON text's).
pub fn config(
    environment: Option<&Bound<'_, PyAny>>,
    bodies: Option<&Bound<'_, PyAny>>,
    dt: f64,
    contact: Option<&Bound<'_, PyAny>>,
) -> PyResult<Config> {
    let mut sim = Map::new();
    sim.insert("dt".into(), number(dt, "dt")?);
    if let Some(b) = bodies {
        sim.insert("bodies".into(), to_json(b, "sim.bodies")?);
    }
    let mut doc = Map::new();
    doc.insert("robot".into(), Value::Object(Map::new()));
    doc.insert("sim".into(), Value::Object(sim));
    for (key, section) in [("environment", environment), ("contact", contact)] {
        if let Some(s) = section.filter(|s| !s.is_none()) {
            doc.insert(key.into(), to_json(s, key)?);
        }
    }
    let text = serde_json::to_string(&Value::Object(doc)).map_err(engine)?;
    Config::from_yaml(&text, ORIGIN).map_err(|e| engine(without_position(e)))
}

/// The error's text without the "(line L, column C)" of the generated document.
fn without_position(e: ConfigError) -> String {
    match e {
        ConfigError::Invalid { file, key, message } => {
            let message = match message.rfind(" (line ") {
                Some(at) if message.ends_with(')') => &message[..at],
                _ => message.as_str(),
            };
            format!("{file}: key `{key}`: {message}")
        }
        other => other.to_string(),
    }
}
