//! The top level of a class file (JVMS §4.1): header, pool, fields,
//! methods, class attributes, and the checks that span them.
//!
//! This is where attributes are sorted into *structural* ones, whose
//! failure fails the class (`Code`, `BootstrapMethods`, anything that
//! breaks the framing of the file), and *optional* ones, which are dropped
//! with a warning naming the member (everything else we read). Unknown
//! attributes are skipped by their declared length without comment.

use crate::annotations;
use crate::attributes;
use crate::code;
use crate::cx::{Cx, Owner};
use crate::error::ParseError;
use crate::model::{Annotation, ClassFile, Constant, FieldInfo, MethodInfo};
use crate::pool::{self, tag};
use crate::reader::Reader;
use crate::ParseOptions;

/// Oldest and newest class-file major versions read (Java 1.0 to 25).
pub const MIN_MAJOR_VERSION: u16 = 45;
pub const MAX_MAJOR_VERSION: u16 = 69;

/// The Java release that introduced a class-file major version
/// (`52` → `"8"`, `48` → `"1.4"`).
pub fn java_release(major: u16) -> String {
    match major {
        0..=44 => "before 1.0".to_string(),
        45 => "1.0/1.1".to_string(),
        46..=48 => format!("1.{}", major - 44),
        _ => (major - 44).to_string(),
    }
}

pub(crate) fn parse_class(bytes: &[u8], opts: &ParseOptions) -> Result<ClassFile, ParseError> {
    let mut r = Reader::new(bytes);
    let magic = r
        .u32()
        .map_err(|_| ParseError::new(0, format!("not a class file: only {} bytes", bytes.len())))?;
    if magic != 0xCAFE_BABE {
        let hint = if magic == 0x504B_0304 {
            " (this is a zip/jar archive)"
        } else {
            ""
        };
        return Err(ParseError::new(
            0,
            format!("not a class file: magic is 0x{magic:08X}, expected 0xCAFEBABE{hint}"),
        ));
    }
    let minor_version = r.u16()?;
    let major_version = r.u16()?;
    if !(MIN_MAJOR_VERSION..=MAX_MAJOR_VERSION).contains(&major_version) {
        return Err(ParseError::new(
            6,
            format!(
                "unsupported class file version {major_version}.{minor_version} (Java {}); lockstep reads {MIN_MAJOR_VERSION}–{MAX_MAJOR_VERSION}",
                java_release(major_version)
            ),
        ));
    }

    let pool = pool::parse_pool(&mut r).map_err(|e| e.within("constant pool"))?;
    let mut cx = Cx {
        pool: &pool.constants,
        tags: &pool.tags,
        major: major_version,
        decode_code: opts.decode_code,
        warnings: Vec::new(),
        boundaries: Vec::new(),
    };

    let header = |r: &mut Reader<'_>, cx: &Cx<'_>| -> Result<_, ParseError> {
        let access_flags = r.u16()?;
        let at = r.offset();
        let this_class = cx.expect_class(r.u16()?, at, "this_class")?.clone();
        let at = r.offset();
        let super_class = cx.optional_class(r.u16()?, at, "super_class")?.cloned();
        let n = usize::from(r.u16()?);
        let mut interfaces = Vec::with_capacity(r.capacity_for(n, 2));
        for i in 0..n {
            let at = r.offset();
            interfaces.push(
                cx.expect_class(r.u16()?, at, &format!("interface #{i}"))?
                    .clone(),
            );
        }
        Ok((access_flags, this_class, super_class, interfaces))
    };
    let (access_flags, this_class, super_class, interfaces) =
        header(&mut r, &cx).map_err(|e| e.within("class header"))?;

    let n = usize::from(r.u16()?);
    let mut fields = Vec::with_capacity(r.capacity_for(n, 8));
    for i in 0..n {
        fields.push(field(&mut cx, &mut r, i)?);
    }
    let n = usize::from(r.u16()?);
    let mut methods = Vec::with_capacity(r.capacity_for(n, 8));
    for i in 0..n {
        methods.push(method(&mut cx, &mut r, i)?);
    }

    let mut class = ClassFile {
        minor_version,
        major_version,
        constant_pool: Default::default(),
        access_flags,
        this_class,
        super_class,
        interfaces,
        fields,
        methods,
        source_file: None,
        signature: None,
        inner_classes: Vec::new(),
        enclosing_method: None,
        nest_host: None,
        nest_members: Vec::new(),
        record_components: None,
        bootstrap_methods: Vec::new(),
        annotations: Vec::new(),
        warnings: Vec::new(),
    };
    class_attributes(&mut cx, &mut r, &mut class)?;
    check_bootstrap_indices(&pool, class.bootstrap_methods.len())?;

    if r.remaining() > 0 {
        let owner = Owner::Class(&class.this_class);
        cx.warn(
            owner,
            format_args!(
                "{} bytes of trailing data after the end of the class file at byte {}",
                r.remaining(),
                r.offset()
            ),
        );
    }
    class.warnings = cx.warnings;
    class.constant_pool = pool.constants;
    Ok(class)
}

fn member_header<'p>(
    cx: &Cx<'p>,
    r: &mut Reader<'_>,
) -> Result<(u16, &'p std::sync::Arc<str>, &'p std::sync::Arc<str>), ParseError> {
    let access = r.u16()?;
    let at = r.offset();
    let name = cx.expect_utf8(r.u16()?, at, "name")?;
    let at = r.offset();
    let desc = cx.expect_utf8(r.u16()?, at, "descriptor")?;
    Ok((access, name, desc))
}

fn field(cx: &mut Cx<'_>, r: &mut Reader<'_>, i: usize) -> Result<FieldInfo, ParseError> {
    let (access_flags, name, descriptor) =
        member_header(cx, r).map_err(|e| e.within(format_args!("field #{i}")))?;
    let owner = Owner::Field(name, descriptor);
    let mut f = FieldInfo {
        access_flags,
        name: name.clone(),
        descriptor: descriptor.clone(),
        signature: None,
        constant_value: None,
        annotations: Vec::new(),
    };
    let n = r.u16().map_err(|e| e.within(owner))?;
    for _ in 0..n {
        let attr = cx.attribute(r).map_err(|e| e.within(owner))?;
        match attr.name {
            "ConstantValue" => {
                f.constant_value = cx.optional(owner, attr, attributes::constant_value);
            }
            "Signature" => f.signature = cx.optional(owner, attr, attributes::utf8_attr),
            "RuntimeVisibleAnnotations" | "RuntimeInvisibleAnnotations" => {
                add_annotations(cx, owner, attr, &mut f.annotations);
            }
            // TYPE_USE annotations on the field's type count as the
            // field's (Checker Framework's @GuardedBy).
            "RuntimeVisibleTypeAnnotations" | "RuntimeInvisibleTypeAnnotations" => {
                let visible = attr.name == "RuntimeVisibleTypeAnnotations";
                if let Some(list) = cx.optional(owner, attr, |cx, r| {
                    annotations::field_type_annotations(cx, r, visible)
                }) {
                    f.annotations.extend(list);
                }
            }
            _ => {}
        }
    }
    Ok(f)
}

fn method(cx: &mut Cx<'_>, r: &mut Reader<'_>, i: usize) -> Result<MethodInfo, ParseError> {
    let (access_flags, name, descriptor) =
        member_header(cx, r).map_err(|e| e.within(format_args!("method #{i}")))?;
    let owner = Owner::Method(name, descriptor);
    let mut m = MethodInfo {
        access_flags,
        name: name.clone(),
        descriptor: descriptor.clone(),
        signature: None,
        code: None,
        exceptions: Vec::new(),
        annotations: Vec::new(),
        parameter_annotations: Vec::new(),
    };
    let n = r.u16().map_err(|e| e.within(owner))?;
    for _ in 0..n {
        let mut attr = cx.attribute(r).map_err(|e| e.within(owner))?;
        match attr.name {
            "Code" => {
                if m.code.is_some() {
                    return Err(ParseError::new(attr.offset, "second Code attribute").within(owner));
                }
                let code = code::parse_code(cx, owner, &mut attr.body)
                    .map_err(|e| e.within(format_args!("{owner}, Code")))?;
                if attr.body.remaining() > 0 {
                    // The instructions and tables are complete and
                    // consistent; extra bytes are odd but harmless.
                    cx.warn(
                        owner,
                        format_args!(
                            "{} bytes left over at the end of the Code attribute at byte {}",
                            attr.body.remaining(),
                            attr.offset
                        ),
                    );
                }
                m.code = Some(code);
            }
            "Exceptions" => {
                if let Some(list) = cx.optional(owner, attr, attributes::class_list) {
                    m.exceptions = list;
                }
            }
            "Signature" => m.signature = cx.optional(owner, attr, attributes::utf8_attr),
            "RuntimeVisibleAnnotations" | "RuntimeInvisibleAnnotations" => {
                add_annotations(cx, owner, attr, &mut m.annotations);
            }
            "RuntimeVisibleParameterAnnotations" | "RuntimeInvisibleParameterAnnotations" => {
                let visible = attr.name == "RuntimeVisibleParameterAnnotations";
                let parsed = cx.optional(owner, attr, |cx, r| {
                    annotations::parameter_annotations(cx, r, visible)
                });
                if let Some(params) = parsed {
                    // Visible and invisible lists are merged per parameter.
                    if m.parameter_annotations.len() < params.len() {
                        m.parameter_annotations.resize_with(params.len(), Vec::new);
                    }
                    for (dst, src) in m.parameter_annotations.iter_mut().zip(params) {
                        dst.extend(src);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(m)
}

fn add_annotations<'p>(
    cx: &mut Cx<'p>,
    owner: Owner<'_>,
    attr: crate::cx::Attr<'p, '_>,
    dst: &mut Vec<Annotation>,
) {
    let visible = attr.name == "RuntimeVisibleAnnotations";
    if let Some(list) = cx.optional(owner, attr, |cx, r| {
        annotations::annotations(cx, r, visible)
    }) {
        dst.extend(list);
    }
}

fn class_attributes(
    cx: &mut Cx<'_>,
    r: &mut Reader<'_>,
    class: &mut ClassFile,
) -> Result<(), ParseError> {
    let name = class.this_class.clone();
    let owner = Owner::Class(&name);
    let n = r.u16().map_err(|e| e.within("class attributes"))?;
    let mut seen_bootstrap = false;
    for _ in 0..n {
        let attr = cx.attribute(r).map_err(|e| e.within("class attributes"))?;
        match attr.name {
            "SourceFile" => class.source_file = cx.optional(owner, attr, attributes::utf8_attr),
            "Signature" => class.signature = cx.optional(owner, attr, attributes::utf8_attr),
            "InnerClasses" => {
                if let Some(list) = cx.optional(owner, attr, attributes::inner_classes) {
                    class.inner_classes = list;
                }
            }
            "EnclosingMethod" => {
                class.enclosing_method = cx.optional(owner, attr, attributes::enclosing_method);
            }
            "NestHost" => class.nest_host = cx.optional(owner, attr, attributes::class_attr),
            "NestMembers" => {
                if let Some(list) = cx.optional(owner, attr, attributes::class_list) {
                    class.nest_members = list;
                }
            }
            "Record" => class.record_components = cx.optional(owner, attr, attributes::record),
            "BootstrapMethods" => {
                // Structural: invokedynamic and condy constants index into it.
                let at = attr.offset;
                if std::mem::replace(&mut seen_bootstrap, true) {
                    return Err(ParseError::new(at, "second BootstrapMethods attribute")
                        .within("class attributes"));
                }
                let mut body = attr.body;
                let methods = attributes::bootstrap_methods(cx, &mut body)
                    .map_err(|e| e.within("BootstrapMethods"))?;
                if body.remaining() > 0 {
                    return Err(ParseError::new(
                        body.offset(),
                        format!(
                            "{} bytes left over after the bootstrap methods",
                            body.remaining()
                        ),
                    )
                    .within("BootstrapMethods"));
                }
                class.bootstrap_methods = methods;
            }
            "RuntimeVisibleAnnotations" | "RuntimeInvisibleAnnotations" => {
                add_annotations(cx, owner, attr, &mut class.annotations);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every `InvokeDynamic`/`Dynamic` constant must name an existing
/// bootstrap method (JVMS §4.7.23), otherwise `invokedynamic` is meaningless.
fn check_bootstrap_indices(pool: &pool::Pool, count: usize) -> Result<(), ParseError> {
    for (i, c) in pool.constants.entries.iter().enumerate() {
        if !matches!(
            pool.tags.get(i),
            Some(&(tag::DYNAMIC | tag::INVOKE_DYNAMIC))
        ) {
            continue;
        }
        let (kind, bsm) = match c {
            Constant::InvokeDynamic {
                bootstrap_index, ..
            } => ("InvokeDynamic", *bootstrap_index),
            Constant::Dynamic {
                bootstrap_index, ..
            } => ("Dynamic", *bootstrap_index),
            _ => continue,
        };
        if usize::from(bsm) >= count {
            let at = pool.offsets.get(i).copied().unwrap_or(0) as usize;
            return Err(ParseError::new(
                at,
                format!(
                    "constant #{i} ({kind}) uses bootstrap method #{bsm}, but the class has {count} (BootstrapMethods attribute {})",
                    if count == 0 { "missing or empty" } else { "too short" }
                ),
            )
            .within("constant pool"));
        }
    }
    Ok(())
}
