/*
 * Element types and the one element codec (dtype.h).
 */
#include <math.h>
#include <string.h>

#include "ir.h"

size_t ox_dtype_size(ox_dtype t)
{
    switch (t) {
    case OX_FLOAT: case OX_INT32: case OX_UINT32: return 4;
    case OX_UINT8: case OX_INT8: case OX_BOOL: return 1;
    case OX_UINT16: case OX_INT16: case OX_FLOAT16: case OX_BFLOAT16: return 2;
    case OX_INT64: case OX_DOUBLE: case OX_UINT64: case OX_COMPLEX64: return 8;
    case OX_COMPLEX128: return 16;
    case OX_STRING: case OX_UNDEFINED: return 0;
    }
    return 0;
}

bool ox_dtype_valid(int t)
{
    return (t >= OX_FLOAT && t <= OX_UINT64) || t == OX_BFLOAT16;
}

bool ox_dtype_known(int t)
{
    return t >= OX_FLOAT && t <= OX_BFLOAT16;
}

bool ox_dtype_complex(int t)
{
    return t == OX_COMPLEX64 || t == OX_COMPLEX128;
}

/* The scalar-type names torch prints in graph listings (Float(1, 3), Long(2)). */
const char *ox_dtype_torch_name(ox_dtype t)
{
    switch (t) {
    case OX_FLOAT: return "Float";
    case OX_UINT8: return "Byte";
    case OX_INT8: return "Char";
    case OX_UINT16: return "UInt16";
    case OX_INT16: return "Short";
    case OX_INT32: return "Int";
    case OX_INT64: return "Long";
    case OX_STRING: return "String";
    case OX_BOOL: return "Bool";
    case OX_FLOAT16: return "Half";
    case OX_DOUBLE: return "Double";
    case OX_UINT32: return "UInt32";
    case OX_UINT64: return "UInt64";
    case OX_BFLOAT16: return "BFloat16";
    case OX_COMPLEX64: return "ComplexFloat";
    case OX_COMPLEX128: return "ComplexDouble";
    case OX_UNDEFINED: break;
    }
    return "Tensor";
}

const char *ox_dtype_name(ox_dtype t)
{
    switch (t) {
    case OX_FLOAT: return "float32";
    case OX_UINT8: return "uint8";
    case OX_INT8: return "int8";
    case OX_UINT16: return "uint16";
    case OX_INT16: return "int16";
    case OX_INT32: return "int32";
    case OX_INT64: return "int64";
    case OX_STRING: return "string";
    case OX_BOOL: return "bool";
    case OX_FLOAT16: return "float16";
    case OX_DOUBLE: return "float64";
    case OX_UINT32: return "uint32";
    case OX_UINT64: return "uint64";
    case OX_BFLOAT16: return "bfloat16";
    case OX_COMPLEX64: return "complex64";
    case OX_COMPLEX128: return "complex128";
    case OX_UNDEFINED: break;
    }
    return "undefined";
}

/* The IR version follows the default-domain opset (docs/onnx-writer.md). */
int64_t ox_ir_version_for_opset(int64_t opset)
{
    if (opset <= 8)
        return 3;
    if (opset == 9)
        return 4;
    if (opset == 10)
        return 5;
    if (opset == 11)
        return 6;
    if (opset <= 14)
        return 7;
    if (opset <= 18)
        return 8;
    if (opset <= 20)
        return 9;
    return 10;
}

/* ------------------------------------------------------------- the codec */

/* IEEE half <-> float: every half is exact as a float. */
static float half_to_float(uint16_t h)
{
    int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    int exp = (int)((x >> 23) & 0xff) - 127 + 15;
    uint32_t man = x & 0x7fffffu;
    if (((x >> 23) & 0xff) == 0xff)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = man >> shift;
        if ((man >> (shift - 1)) & 1u)
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13);
    if (man & 0x1000u)
        h++; /* round half up; carries into the exponent correctly */
    return (uint16_t)h;
}

/* bfloat16 is the upper half of a float. */
static float bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16); /* to nearest even */
}

bool ox_elem_decode(ox_dtype t, const void *p, ox_elem *out)
{
    float f32; double f64; int8_t i8; uint8_t u8; int16_t i16; uint16_t u16;
    int32_t i32; uint32_t u32; int64_t i64; uint64_t u64;
    switch (t) {
    case OX_FLOAT: memcpy(&f32, p, 4); out->kind = OX_ELEM_FLOAT; out->v.f = f32; return true;
    case OX_DOUBLE: memcpy(&f64, p, 8); out->kind = OX_ELEM_FLOAT; out->v.f = f64; return true;
    case OX_FLOAT16:
        memcpy(&u16, p, 2);
        out->kind = OX_ELEM_FLOAT;
        out->v.f = half_to_float(u16);
        return true;
    case OX_BFLOAT16:
        memcpy(&u16, p, 2);
        out->kind = OX_ELEM_FLOAT;
        out->v.f = bf16_to_float(u16);
        return true;
    case OX_INT8: memcpy(&i8, p, 1); out->kind = OX_ELEM_INT; out->v.i = i8; return true;
    case OX_INT16: memcpy(&i16, p, 2); out->kind = OX_ELEM_INT; out->v.i = i16; return true;
    case OX_INT32: memcpy(&i32, p, 4); out->kind = OX_ELEM_INT; out->v.i = i32; return true;
    case OX_INT64: memcpy(&i64, p, 8); out->kind = OX_ELEM_INT; out->v.i = i64; return true;
    case OX_UINT8: memcpy(&u8, p, 1); out->kind = OX_ELEM_UINT; out->v.u = u8; return true;
    case OX_BOOL: memcpy(&u8, p, 1); out->kind = OX_ELEM_UINT; out->v.u = u8 != 0; return true;
    case OX_UINT16: memcpy(&u16, p, 2); out->kind = OX_ELEM_UINT; out->v.u = u16; return true;
    case OX_UINT32: memcpy(&u32, p, 4); out->kind = OX_ELEM_UINT; out->v.u = u32; return true;
    case OX_UINT64: memcpy(&u64, p, 8); out->kind = OX_ELEM_UINT; out->v.u = u64; return true;
    case OX_COMPLEX64: case OX_COMPLEX128: /* two numbers, no one scalar */
    case OX_STRING: case OX_UNDEFINED: break;
    }
    return false;
}

double ox_elem_load(ox_dtype t, const void *p, bool *ok)
{
    ox_elem e;
    if (!ox_elem_decode(t, p, &e)) {
        if (ok)
            *ok = false;
        return 0;
    }
    switch (e.kind) {
    case OX_ELEM_INT: return (double)e.v.i;
    case OX_ELEM_UINT: return (double)e.v.u;
    case OX_ELEM_FLOAT: break;
    }
    return e.v.f;
}

bool ox_elem_store(ox_dtype t, double v, void *p)
{
    switch (t) {
    case OX_FLOAT: { float x = (float)v; memcpy(p, &x, sizeof x); return true; }
    case OX_DOUBLE: memcpy(p, &v, sizeof v); return true;
    case OX_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_BOOL: { uint8_t x = v != 0; memcpy(p, &x, sizeof x); return true; }
    case OX_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, sizeof x); return true; }
    case OX_FLOAT16: { uint16_t x = float_to_half((float)v); memcpy(p, &x, sizeof x); return true; }
    case OX_BFLOAT16: {
        uint16_t x = float_to_bf16((float)v);
        memcpy(p, &x, sizeof x);
        return true;
    }
    case OX_COMPLEX64: case OX_COMPLEX128:
    case OX_STRING: case OX_UNDEFINED: break;
    }
    return false;
}
