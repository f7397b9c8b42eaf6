//! A map key, as serde_json writes one (for [`super::serializer`]): a
//! string, or a number or boolean written as a string; a float key must
//! be finite; anything else is refused.

use serde::ser::{self, Serialize};

use super::serializer::{integers, NotJson, Writer};

type Result<T = ()> = std::result::Result<T, NotJson>;

/// A map key: a string, or a number or boolean written as a string (as
/// serde_json writes keys); anything else is refused.
pub(super) struct MapKey<'a, 'b>(pub(super) &'b mut Writer<'a>);

impl MapKey<'_, '_> {
    fn quoted(self, write: impl FnOnce(&mut Writer<'_>)) -> Result {
        self.0.push(b'"');
        write(self.0);
        self.0.push(b'"');
        Ok(())
    }
}

impl<'a, 'b> ser::Serializer for MapKey<'a, 'b> {
    type Ok = ();
    type Error = NotJson;
    type SerializeSeq = ser::Impossible<(), NotJson>;
    type SerializeTuple = ser::Impossible<(), NotJson>;
    type SerializeTupleStruct = ser::Impossible<(), NotJson>;
    type SerializeTupleVariant = ser::Impossible<(), NotJson>;
    type SerializeMap = ser::Impossible<(), NotJson>;
    type SerializeStruct = ser::Impossible<(), NotJson>;
    type SerializeStructVariant = ser::Impossible<(), NotJson>;

    fn serialize_str(self, v: &str) -> Result {
        self.0.string(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result {
        self.0.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.0.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(|w| w.put(if v { b"true" } else { b"false" }))
    }
    integers!(|key, v| { key.quoted(|w| w.int(v)) });
    fn serialize_f32(self, v: f32) -> Result {
        if !v.is_finite() {
            return Err(NotJson);
        }
        self.quoted(|w| w.put(zmij::Buffer::new().format_finite(v).as_bytes()))
    }
    fn serialize_f64(self, v: f64) -> Result {
        if !v.is_finite() {
            return Err(NotJson);
        }
        self.quoted(|w| w.float(v))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(NotJson)
    }
    fn serialize_none(self) -> Result {
        Err(NotJson)
    }
    fn serialize_unit(self) -> Result {
        Err(NotJson)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(NotJson)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result {
        Err(NotJson)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(NotJson)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(NotJson)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
        Err(NotJson)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant> {
        Err(NotJson)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(NotJson)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(NotJson)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant> {
        Err(NotJson)
    }
}
