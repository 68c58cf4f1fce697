//! Building `ClassFile` values by hand, for code javac cannot produce
//! (`jsr`/`ret`, broken stacks).

use std::sync::Arc;

use lockstep_classfile::*;

pub struct Cp {
    pub entries: Vec<Constant>,
}

impl Default for Cp {
    fn default() -> Self {
        Cp {
            entries: vec![Constant::Unusable],
        }
    }
}

fn member(class: &str, name: &str, desc: &str) -> MemberRef {
    MemberRef {
        class: class.into(),
        name: name.into(),
        descriptor: desc.into(),
    }
}

impl Cp {
    fn push(&mut self, c: Constant) -> u16 {
        self.entries.push(c);
        (self.entries.len() - 1) as u16
    }
    pub fn class(&mut self, name: &str) -> u16 {
        self.push(Constant::Class(name.into()))
    }
    pub fn field(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        self.push(Constant::FieldRef(member(class, name, desc)))
    }
    pub fn method(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        self.push(Constant::MethodRef(member(class, name, desc)))
    }
    pub fn int(&mut self, v: i32) -> u16 {
        self.push(Constant::Integer(v))
    }
    pub fn string(&mut self, s: &str) -> u16 {
        self.push(Constant::String(s.into()))
    }
}

pub fn handler(
    start_pc: u32,
    end_pc: u32,
    handler_pc: u32,
    catch_type: Option<u16>,
) -> ExceptionHandler {
    ExceptionHandler {
        start_pc,
        end_pc,
        handler_pc,
        catch_type,
    }
}

pub fn code(
    max_stack: u16,
    max_locals: u16,
    insns: Vec<(u32, Insn)>,
    handlers: Vec<ExceptionHandler>,
) -> Code {
    let code_length = insns.last().map_or(0, |(pc, _)| pc + 1);
    Code {
        max_stack,
        max_locals,
        code_length,
        insns,
        exception_table: handlers,
        line_numbers: Vec::new(),
        local_variables: Vec::new(),
    }
}

pub fn method(name: &str, desc: &str, flags: u16, code: Code) -> MethodInfo {
    MethodInfo {
        access_flags: flags,
        name: name.into(),
        descriptor: desc.into(),
        signature: None,
        code: Some(code),
        exceptions: Vec::new(),
        annotations: Vec::new(),
        parameter_annotations: Vec::new(),
    }
}

pub fn class_file(name: &str, major: u16, cp: Cp, methods: Vec<MethodInfo>) -> ClassFile {
    ClassFile {
        minor_version: 0,
        major_version: major,
        constant_pool: ConstantPool {
            entries: cp.entries,
        },
        access_flags: access::PUBLIC | access::SYNCHRONIZED,
        this_class: Arc::from(name),
        super_class: Some("java/lang/Object".into()),
        interfaces: Vec::new(),
        fields: Vec::new(),
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
    }
}

/// A class with one method of the given code, and its constant pool entries.
pub fn one_method(cp: Cp, name: &str, desc: &str, flags: u16, code: Code) -> ClassFile {
    class_file("T", 46, cp, vec![method(name, desc, flags, code)])
}
