//! Fuzz target: the JDK runtime-image (`lib/modules`) reader. Any bytes must
//! give `Ok` or `Err` from parsing, enumerating, looking up and reading,
//! never a panic, and the answers must agree with each other.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep_classpath::jimage_from_bytes;

fuzz_target!(|data: &[u8]| {
    let Ok(image) = jimage_from_bytes(data) else {
        return;
    };
    let _ = (
        image.version(),
        image.flags(),
        image.resource_count(),
        image.is_big_endian(),
    );
    assert!(image.index_size() <= data.len());

    let (classes, errors) = image.classes();
    let mut walked = Vec::new();
    let walk_errors = image.for_each_class(|slot, names| {
        walked.push((slot, names.module.to_string(), names.internal_name()));
        let _ = names.full_name();
    });
    assert_eq!(errors, walk_errors);
    assert_eq!(classes.len(), walked.len());
    for (class, (slot, module, internal)) in classes.iter().zip(&walked) {
        assert_eq!((class.slot, &class.module, &class.internal_name), (*slot, module, internal));
    }

    for class in &classes {
        let location = image
            .location_at(class.slot)
            .expect("a slot classes() returned must decode");
        let by_location = image.read(&location);
        let by_slot = image.read_slot(class.slot);
        assert_eq!(by_location, by_slot);
        // The hash lookup may miss in a mangled image, but a hit must be
        // the resource asked for.
        let name = class.full_name();
        if let Some((slot, found)) = image.find(&name) {
            assert_eq!(image.location_at(slot).as_ref(), Ok(&found));
            let names = image.names(&found).expect("find checked the names");
            assert_eq!(names.full_name(), name);
        }
    }

    // Non-class resources and undecodable slots, too (bounded: the table
    // can have one slot per 8 bytes of input).
    for slot in 0..image.table_length().min(512) {
        if let Ok(location) = image.location_at(slot) {
            let _ = image.names(&location);
            let _ = image.read(&location);
        }
    }
    let _ = image.find("/java.base/java/lang/Object.class");
    let _ = image.find("");
});
