#include "ir.h"

size_t ox_dtype_size(ox_dtype t)
{
    switch (t) {
    case OX_FLOAT: case OX_INT32: case OX_UINT32: return 4;
    case OX_UINT8: case OX_INT8: case OX_BOOL: return 1;
    case OX_UINT16: case OX_INT16: case OX_FLOAT16: case OX_BFLOAT16: return 2;
    case OX_INT64: case OX_DOUBLE: case OX_UINT64: return 8;
    case OX_STRING: case OX_UNDEFINED: return 0;
    }
    return 0;
}

bool ox_dtype_valid(int t)
{
    return (t >= OX_FLOAT && t <= OX_UINT64) || t == OX_BFLOAT16;
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
    case OX_UNDEFINED: break;
    }
    return "undefined";
}

/* DESIGN.md: IR version follows the default-domain opset. */
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
