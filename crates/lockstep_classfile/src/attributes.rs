//! Bodies of the small attributes: `SourceFile`, `Signature`,
//! `ConstantValue`, `Exceptions`, `InnerClasses`, `EnclosingMethod`,
//! `NestHost`, `NestMembers`, `Record` and `BootstrapMethods`.
//!
//! Each function reads one attribute body from a reader that covers
//! exactly that body; the caller ([`crate::class`]) decides which are
//! optional (dropped with a warning when malformed) and which are
//! structural (`BootstrapMethods`, which `invokedynamic` depends on).
//! Attributes of record components are skipped unread.

use std::sync::Arc;

use crate::cx::Cx;
use crate::error::ParseError;
use crate::model::{BootstrapMethod, Constant, EnclosingMethod, InnerClass, RecordComponent};
use crate::pool::tag;
use crate::reader::Reader;

/// `SourceFile`, `Signature`: a single `Utf8` index.
pub(crate) fn utf8_attr(cx: &Cx<'_>, r: &mut Reader<'_>) -> Result<Arc<str>, ParseError> {
    let at = r.offset();
    Ok(cx.expect_utf8(r.u16()?, at, "attribute value")?.clone())
}

/// `NestHost`: a single `Class` index.
pub(crate) fn class_attr(cx: &Cx<'_>, r: &mut Reader<'_>) -> Result<Arc<str>, ParseError> {
    let at = r.offset();
    Ok(cx.expect_class(r.u16()?, at, "attribute value")?.clone())
}

/// `Exceptions`, `NestMembers`: a u16 count of `Class` indices.
pub(crate) fn class_list(cx: &Cx<'_>, r: &mut Reader<'_>) -> Result<Vec<Arc<str>>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 2));
    for i in 0..n {
        let at = r.offset();
        let idx = r.u16()?;
        let what = || format!("entry #{i}");
        match cx.pool.class_name(idx) {
            Some(name) => out.push(name.clone()),
            None => return Err(cx.bad_index(idx, at, &what(), tag::bit(tag::CLASS))),
        }
    }
    Ok(out)
}

/// `ConstantValue`: an `Integer`, `Float`, `Long`, `Double` or `String`.
pub(crate) fn constant_value(cx: &Cx<'_>, r: &mut Reader<'_>) -> Result<Constant, ParseError> {
    let at = r.offset();
    let idx = r.u16()?;
    match cx.pool.get(idx) {
        Some(
            c @ (Constant::Integer(_)
            | Constant::Float(_)
            | Constant::Long(_)
            | Constant::Double(_)
            | Constant::String(_)),
        ) => Ok(c.clone()),
        _ => Err(cx.bad_index(
            idx,
            at,
            "constant value",
            tag::bit(tag::INTEGER)
                | tag::bit(tag::FLOAT)
                | tag::bit(tag::LONG)
                | tag::bit(tag::DOUBLE)
                | tag::bit(tag::STRING),
        )),
    }
}

pub(crate) fn inner_classes(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
) -> Result<Vec<InnerClass>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 8));
    for _ in 0..n {
        let at = r.offset();
        let inner_class = cx.expect_class(r.u16()?, at, "inner class")?.clone();
        let outer_class = cx.optional_class(r.u16()?, at, "outer class")?.cloned();
        let name_idx = r.u16()?;
        let inner_name = if name_idx == 0 {
            None
        } else {
            Some(cx.expect_utf8(name_idx, at, "inner class name")?.clone())
        };
        let access_flags = r.u16()?;
        out.push(InnerClass {
            inner_class,
            outer_class,
            inner_name,
            access_flags,
        });
    }
    Ok(out)
}

pub(crate) fn enclosing_method(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
) -> Result<EnclosingMethod, ParseError> {
    let at = r.offset();
    let class = cx.expect_class(r.u16()?, at, "enclosing class")?.clone();
    let at = r.offset();
    let idx = r.u16()?;
    let method = if idx == 0 {
        None
    } else {
        match cx.pool.get(idx) {
            Some(Constant::NameAndType { name, descriptor }) => {
                Some((name.clone(), descriptor.clone()))
            }
            _ => {
                return Err(cx.bad_index(idx, at, "enclosing method", tag::bit(tag::NAME_AND_TYPE)))
            }
        }
    };
    Ok(EnclosingMethod { class, method })
}

pub(crate) fn record(cx: &Cx<'_>, r: &mut Reader<'_>) -> Result<Vec<RecordComponent>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 6));
    for _ in 0..n {
        let at = r.offset();
        let name = cx
            .expect_utf8(r.u16()?, at, "record component name")?
            .clone();
        let at = r.offset();
        let descriptor = cx
            .expect_utf8(r.u16()?, at, "record component descriptor")?
            .clone();
        // Component attributes (Signature, annotations) are not modelled;
        // skip each by its declared length.
        let attrs = r.u16()?;
        for _ in 0..attrs {
            cx.attribute(r)?;
        }
        out.push(RecordComponent { name, descriptor });
    }
    Ok(out)
}

pub(crate) fn bootstrap_methods(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
) -> Result<Vec<BootstrapMethod>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 4));
    for i in 0..n {
        let at = r.offset();
        let method_ref = r.u16()?;
        cx.expect_kind(
            method_ref,
            tag::bit(tag::METHOD_HANDLE),
            at,
            &format!("bootstrap method #{i}"),
        )?;
        let argc = usize::from(r.u16()?);
        let mut arguments = Vec::with_capacity(r.capacity_for(argc, 2));
        for _ in 0..argc {
            let at = r.offset();
            let arg = r.u16()?;
            cx.expect_kind(
                arg,
                tag::LOADABLE_ANY,
                at,
                &format!("argument of bootstrap method #{i}"),
            )?;
            arguments.push(arg);
        }
        out.push(BootstrapMethod {
            method_ref,
            arguments,
        });
    }
    Ok(out)
}
