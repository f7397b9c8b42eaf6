//! The serde serializer behind [`super::json_into`]: serde_json's compact
//! text, byte for byte, with a whole number held as a float written as JS
//! writes it (see [`super::json_into`]).
//!
//! Why not serde_json's own serializer: it escapes a string a byte at a
//! time, and strings are most of what the core writes (messages, tool
//! results, prompts). Here a string's plain bytes are found 16 at a time
//! with WebAssembly SIMD and copied whole. Writing into a `Vec` that cannot
//! fail, it also carries no I/O error through each fragment. Measured
//! against serde_json's serializer: see [`super::json_into`].
//!
//! What serde_json's compact writer does, and so this: `null` for a unit, a
//! `None`, and a float that is NaN or infinite; an enum's unit variant as
//! its name; a newtype, struct or tuple variant as `{"name":value}`; bytes
//! as an array of numbers; map keys as strings (numbers and booleans
//! quoted, a float key must be finite), anything else as a key refused.

use serde::ser::{self, Serialize};

use super::map_key::MapKey;

/// A value serde could not write as JSON: a map key that is not a string,
/// a number or a boolean, or a `Serialize` impl's own error. The caller
/// ([`super::json_into`]) writes nothing then.
#[derive(Debug)]
pub struct NotJson;

impl std::fmt::Display for NotJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not JSON data")
    }
}

impl std::error::Error for NotJson {}

impl ser::Error for NotJson {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotJson
    }
}

type Result<T = ()> = std::result::Result<T, NotJson>;

/// Writes JSON text onto a byte buffer.
pub struct Writer<'a>(pub &'a mut Vec<u8>);

impl Writer<'_> {
    #[inline]
    pub(super) fn push(&mut self, b: u8) {
        self.put(&[b]);
    }

    /// Appends `bytes`. `Vec`'s own `extend_from_slice` is a call per
    /// fragment at opt-level "s", and JSON is written in many small ones (a
    /// brace, a quote, a key); this is a capacity check and a copy, inlined.
    #[inline]
    pub(super) fn put(&mut self, bytes: &[u8]) {
        let v = &mut *self.0;
        if v.capacity() - v.len() < bytes.len() {
            grow(v, bytes.len());
        }
        let len = v.len();
        // SAFETY: the capacity was checked (or grown) above, and the source
        // is a separate borrow, so the ranges cannot overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().add(len), bytes.len());
            v.set_len(len + bytes.len());
        }
    }

    pub(super) fn int(&mut self, n: impl itoa::Integer) {
        self.put(itoa::Buffer::new().format(n).as_bytes());
    }

    pub(super) fn float(&mut self, v: f64) {
        if !v.is_finite() {
            self.put(b"null");
        } else if v.fract() == 0.0 && v.abs() <= crate::number::MAX_SAFE_INTEGER as f64 {
            // A whole number: JS's form (`3`, not `3.0`).
            self.int(v as i64);
        } else {
            // serde_json's float writer (zmij), linked through it already.
            self.put(zmij::Buffer::new().format_finite(v).as_bytes());
        }
    }

    /// `s` as a JSON string: quoted, with `"`, `\` and the control
    /// characters escaped as serde_json escapes them.
    pub(super) fn string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        self.push(b'"');
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let mut i = self.string_simd(bytes);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let mut i = 0;
        // What is left (under 16 bytes with SIMD), a byte at a time.
        let mut start = i;
        while i < bytes.len() {
            let b = bytes[i];
            if escaped(b) {
                self.put(&bytes[start..i]);
                self.escape(b);
                start = i + 1;
            }
            i += 1;
        }
        self.put(&bytes[start..]);
        self.push(b'"');
    }

    /// Copies `bytes` into the text 16 at a time, escaping as it goes, while
    /// at least 16 are left; returns where it stopped. Each 16 bytes are
    /// stored whole and the text's length moved past the plain ones, so a
    /// plain run costs no copy call of its own, however short (strings the
    /// core writes are dense with newlines and quotes).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn string_simd(&mut self, bytes: &[u8]) -> usize {
        use core::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_lt, u8x16_splat, v128, v128_load, v128_or, v128_store};
        let mut i = 0;
        while i + 16 <= bytes.len() {
            let v = &mut *self.0;
            // Room for every byte left, unescaped, and for the 16 a store writes.
            if v.capacity() - v.len() < bytes.len() - i + 16 {
                grow(v, bytes.len() - i + 16);
            }
            let len = v.len();
            // SAFETY: bytes[i..i + 16] is in bounds (the loop's condition),
            // and the 16 bytes after the text's end are spare capacity
            // (checked above); v128_load and v128_store take any alignment.
            let mask = unsafe {
                let chunk = v128_load(bytes.as_ptr().add(i).cast::<v128>());
                v128_store(v.as_mut_ptr().add(len).cast::<v128>(), chunk);
                u8x16_bitmask(v128_or(
                    v128_or(u8x16_lt(chunk, u8x16_splat(0x20)), u8x16_eq(chunk, u8x16_splat(b'"'))),
                    u8x16_eq(chunk, u8x16_splat(b'\\')),
                ))
            };
            let plain = if mask == 0 { 16 } else { mask.trailing_zeros() as usize };
            // SAFETY: the first `plain` bytes stored are the text's now (all initialised).
            unsafe { v.set_len(len + plain) };
            i += plain;
            if plain < 16 {
                self.escape(bytes[i]);
                i += 1;
            }
        }
        i
    }

    fn escape(&mut self, b: u8) {
        match b {
            b'"' => self.put(b"\\\""),
            b'\\' => self.put(b"\\\\"),
            b'\n' => self.put(b"\\n"),
            b'\r' => self.put(b"\\r"),
            b'\t' => self.put(b"\\t"),
            0x08 => self.put(b"\\b"),
            0x0c => self.put(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.put(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]]);
            }
        }
    }
}

#[cold]
#[inline(never)]
fn grow(v: &mut Vec<u8>, more: usize) {
    v.reserve(more);
}

/// Whether `b` must be escaped in a JSON string.
#[inline]
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// serialize_i8 ... serialize_u128, each writing its number through `$write`
/// (`|writer, value| -> Result`): the same in both serializers but for how
/// the number is put (a map key quotes it).
macro_rules! integers {
    (|$w:ident, $v:ident| $write:block) => {
        integers!(@each |$w, $v| $write, serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64, serialize_i128 i128,
            serialize_u8 u8, serialize_u16 u16, serialize_u32 u32, serialize_u64 u64, serialize_u128 u128);
    };
    (@each |$w:ident, $v:ident| $write:block, $($name:ident $t:ty),*) => {$(
        fn $name(self, $v: $t) -> Result {
            let $w = self;
            $write
        }
    )*};
}
pub(super) use integers;

/// An array or object being written: its closing bytes, and whether an
/// element was written yet (for the commas).
pub struct Compound<'a, 'b> {
    w: &'b mut Writer<'a>,
    first: bool,
    close: &'static [u8],
}

impl Compound<'_, '_> {
    // Not inlined: every type's `element` calls it. Measured against
    // inlined (alternating builds, Node 20): a record the core makes to its
    // JsonlSink line 1.37-1.48 against 1.42-1.51 us, a turn with tools,
    // a sink and observers 58-62 against 60-62 us (the same within noise),
    // and the module 328 bytes gzip smaller.
    #[inline(never)]
    fn comma(&mut self) {
        if !self.first {
            self.w.push(b',');
        }
        self.first = false;
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.comma();
        value.serialize(&mut *self.w)
    }

    fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result {
        self.key(key);
        value.serialize(&mut *self.w)
    }

    /// A struct's field name and its colon. The name is a Rust type's own
    /// (serde's derive gives `&'static str`), plain by construction, so it
    /// is copied without a scan for bytes to escape; not generic, so the
    /// 75 types' `field`s share it. Measured against `string(key)`
    /// (alternating builds, Node 20): a record the core makes to its
    /// JsonlSink line 1.36-1.42 against 1.43-1.61 us, and the module 305
    /// bytes gzip smaller.
    #[inline(never)]
    fn key(&mut self, key: &'static str) {
        debug_assert!(!key.bytes().any(escaped), "a field name to escape: {key}");
        self.comma();
        self.w.push(b'"');
        self.w.put(key.as_bytes());
        self.w.put(b"\":");
    }

    fn close(self) -> Result {
        self.w.put(self.close);
        Ok(())
    }
}

impl<'a> Writer<'a> {
    fn open<'b>(&'b mut self, open: &[u8], close: &'static [u8]) -> Compound<'a, 'b> {
        self.put(open);
        Compound { w: self, first: true, close }
    }

    /// `{"variant":` then the rest, closed by `close` and a `}`.
    fn variant<'b>(&'b mut self, variant: &str, open: &[u8], close: &'static [u8]) -> Compound<'a, 'b> {
        self.push(b'{');
        self.string(variant);
        self.push(b':');
        self.open(open, close)
    }
}

impl<'a, 'b> ser::Serializer for &'b mut Writer<'a> {
    type Ok = ();
    type Error = NotJson;
    type SerializeSeq = Compound<'a, 'b>;
    type SerializeTuple = Compound<'a, 'b>;
    type SerializeTupleStruct = Compound<'a, 'b>;
    type SerializeTupleVariant = Compound<'a, 'b>;
    type SerializeMap = Compound<'a, 'b>;
    type SerializeStruct = Compound<'a, 'b>;
    type SerializeStructVariant = Compound<'a, 'b>;

    fn serialize_bool(self, v: bool) -> Result {
        self.put(if v { b"true" } else { b"false" });
        Ok(())
    }
    integers!(|w, v| {
        w.int(v);
        Ok(())
    });
    fn serialize_f32(self, v: f32) -> Result {
        if v.is_finite() {
            self.put(zmij::Buffer::new().format_finite(v).as_bytes());
        } else {
            self.put(b"null");
        }
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result {
        self.float(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        let mut seq = self.open(b"[", b"]");
        for b in v {
            seq.element(b)?;
        }
        seq.close()
    }
    fn serialize_none(self) -> Result {
        self.put(b"null");
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.put(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        self.put(b"null");
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, variant: &'static str, value: &T) -> Result {
        self.push(b'{');
        self.string(variant);
        self.push(b':');
        value.serialize(&mut *self)?;
        self.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a, 'b>> {
        Ok(self.open(b"[", b"]"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a, 'b>> {
        Ok(self.open(b"[", b"]"))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, 'b>> {
        Ok(self.open(b"[", b"]"))
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, variant: &'static str, _: usize) -> Result<Compound<'a, 'b>> {
        Ok(self.variant(variant, b"[", b"]}"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a, 'b>> {
        Ok(self.open(b"{", b"}"))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, 'b>> {
        Ok(self.open(b"{", b"}"))
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, variant: &'static str, _: usize) -> Result<Compound<'a, 'b>> {
        Ok(self.variant(variant, b"{", b"}}"))
    }
}

/// The compounds whose values are elements (`[a,b]`) or fields
/// (`{"k":v}`): each impl the same but for its trait and method names.
macro_rules! compound {
    ($($tr:ident $method:ident($($key:ident: $k:ty)?) => $write:ident;)*) => {$(
        impl ser::$tr for Compound<'_, '_> {
            type Ok = ();
            type Error = NotJson;
            fn $method<T: ?Sized + Serialize>(&mut self, $($key: $k,)? value: &T) -> Result {
                self.$write($($key,)? value)
            }
            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

compound! {
    SerializeSeq serialize_element() => element;
    SerializeTuple serialize_element() => element;
    SerializeTupleStruct serialize_field() => element;
    SerializeTupleVariant serialize_field() => element;
    SerializeStruct serialize_field(key: &'static str) => field;
    SerializeStructVariant serialize_field(key: &'static str) => field;
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = NotJson;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        self.comma();
        key.serialize(MapKey(&mut *self.w))?;
        self.w.push(b':');
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result {
        self.close()
    }
}
