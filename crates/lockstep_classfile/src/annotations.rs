//! `Runtime(In)Visible(Parameter)Annotations` (JVMS §4.7.16–§4.7.19).
//!
//! Element values nest (annotations inside annotations, arrays inside
//! arrays), so the parser recurses; the depth is capped at
//! [`MAX_DEPTH`] so a forged attribute cannot exhaust the stack. Every
//! annotation attribute is optional: the caller drops a malformed one with
//! a warning. Of the type annotations (`Runtime*TypeAnnotations`) only a
//! field's own type is read ([`field_type_annotations`]): the Checker
//! Framework's `@GuardedBy` is a TYPE_USE annotation and lands there.
//! `AnnotationDefault` is not read; nothing in lockstep needs it.
//!
//! A string element (tag `s`) points at a `Utf8` entry; it is stored as
//! [`Constant::String`] because that is what the value *is* in Java terms.

use crate::cx::Cx;
use crate::error::ParseError;
use crate::model::{Annotation, Constant, ElementValue};
use crate::pool::tag;
use crate::reader::Reader;

/// Deepest nesting of annotation and array values accepted.
pub(crate) const MAX_DEPTH: u32 = 64;

/// `num_annotations` followed by that many annotations.
pub(crate) fn annotations(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
    visible: bool,
) -> Result<Vec<Annotation>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 4));
    for _ in 0..n {
        out.push(annotation(cx, r, visible, 0)?);
    }
    Ok(out)
}

/// `num_parameters` (u1) followed by one annotation list per parameter.
pub(crate) fn parameter_annotations(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
    visible: bool,
) -> Result<Vec<Vec<Annotation>>, ParseError> {
    let n = usize::from(r.u8()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 2));
    for _ in 0..n {
        out.push(annotations(cx, r, visible)?);
    }
    Ok(out)
}

/// JVMS §4.7.20: the `target_type` of a type annotation on a field's type.
const FIELD_TARGET: u8 = 0x13;

/// The type annotations of a field (`Runtime(In)VisibleTypeAnnotations` on
/// a `field_info`) that annotate the field's type itself (empty type path):
/// `@GuardedBy("lock") Object x` with a TYPE_USE `@GuardedBy`. Those on
/// nested types (`List<@A String>`) are skipped.
pub(crate) fn field_type_annotations(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
    visible: bool,
) -> Result<Vec<Annotation>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::new();
    for _ in 0..n {
        let at = r.offset();
        let target = r.u8()?;
        if target != FIELD_TARGET {
            return Err(ParseError::new(
                at,
                format!("type annotation target 0x{target:02x} on a field (expected 0x13)"),
            ));
        }
        let path_length = r.u8()?;
        for _ in 0..path_length {
            r.u8()?; // type_path_kind
            r.u8()?; // type_argument_index
        }
        let parsed = annotation(cx, r, visible, 0)?;
        if path_length == 0 {
            out.push(parsed);
        }
    }
    Ok(out)
}

fn annotation(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
    visible: bool,
    depth: u32,
) -> Result<Annotation, ParseError> {
    let at = r.offset();
    let type_descriptor = cx.expect_utf8(r.u16()?, at, "annotation type")?.clone();
    let n = usize::from(r.u16()?);
    let mut elements = Vec::with_capacity(r.capacity_for(n, 5));
    for _ in 0..n {
        let at = r.offset();
        let name = cx
            .expect_utf8(r.u16()?, at, "annotation element name")?
            .clone();
        let value = element_value(cx, r, visible, depth)?;
        elements.push((name, value));
    }
    Ok(Annotation {
        type_descriptor,
        runtime_visible: visible,
        elements,
    })
}

fn element_value(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
    visible: bool,
    depth: u32,
) -> Result<ElementValue, ParseError> {
    let at = r.offset();
    let t = r.u8()?;
    let idx_at = r.offset();
    Ok(match t {
        b'B' | b'C' | b'I' | b'S' | b'Z' | b'D' | b'F' | b'J' | b's' => {
            let idx = r.u16()?;
            let value = cx.pool.entries.get(usize::from(idx));
            let value = match (t, value) {
                (b'B' | b'C' | b'I' | b'S' | b'Z', Some(c @ Constant::Integer(_)))
                | (b'D', Some(c @ Constant::Double(_)))
                | (b'F', Some(c @ Constant::Float(_)))
                | (b'J', Some(c @ Constant::Long(_))) => c.clone(),
                (b's', Some(Constant::Utf8(s))) => Constant::String(s.clone()),
                _ => {
                    let expected = match t {
                        b'D' => tag::DOUBLE,
                        b'F' => tag::FLOAT,
                        b'J' => tag::LONG,
                        b's' => tag::UTF8,
                        _ => tag::INTEGER,
                    };
                    let what = format!("element value of tag '{}'", char::from(t));
                    return Err(cx.bad_index(idx, idx_at, &what, tag::bit(expected)));
                }
            };
            ElementValue::Const(char::from(t), value)
        }
        b'e' => {
            let type_descriptor = cx.expect_utf8(r.u16()?, idx_at, "enum type")?.clone();
            let at = r.offset();
            let name = cx.expect_utf8(r.u16()?, at, "enum constant name")?.clone();
            ElementValue::Enum {
                type_descriptor,
                name,
            }
        }
        b'c' => ElementValue::Class(
            cx.expect_utf8(r.u16()?, idx_at, "class element value")?
                .clone(),
        ),
        b'@' => {
            let depth = deeper(depth, at)?;
            ElementValue::Annotation(Box::new(annotation(cx, r, visible, depth)?))
        }
        b'[' => {
            let depth = deeper(depth, at)?;
            let n = usize::from(r.u16()?);
            let mut values = Vec::with_capacity(r.capacity_for(n, 3));
            for _ in 0..n {
                values.push(element_value(cx, r, visible, depth)?);
            }
            ElementValue::Array(values)
        }
        _ => {
            return Err(ParseError::new(
                at,
                format!("unknown element value tag 0x{t:02x}"),
            ))
        }
    })
}

fn deeper(depth: u32, at: usize) -> Result<u32, ParseError> {
    if depth >= MAX_DEPTH {
        Err(ParseError::new(
            at,
            format!("annotation values nested deeper than {MAX_DEPTH} levels"),
        ))
    } else {
        Ok(depth + 1)
    }
}
