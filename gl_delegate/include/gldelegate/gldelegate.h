/* gldelegate C API: load a .tflite model, create an interpreter that runs it
 * on the GPU through OpenGL ES 3.1 compute shaders (falling back to CPU
 * kernels node by node), set inputs, invoke, read outputs.
 *
 *   GldModel* model;
 *   if (GldModelCreateFromFile("m.tflite", &model) != GLD_OK) puts(GldLastErrorMessage());
 *   GldOptions* options = GldOptionsCreate();
 *   GldInterpreter* interp;
 *   GldInterpreterCreate(model, options, &interp);
 *   GldInterpreterSetInput(interp, 0, data, bytes);
 *   GldInterpreterInvoke(interp);
 *   GldInterpreterGetOutput(interp, 0, out, out_bytes);
 *   GldInterpreterDelete(interp); GldOptionsDelete(options); GldModelDelete(model);
 *
 * Every function that can fail returns a GldStatus; on failure
 * GldLastErrorMessage() (per thread) says what was wrong. An interpreter may
 * outlive the model it was created from. */
#ifndef GLDELEGATE_GLDELEGATE_H_
#define GLDELEGATE_GLDELEGATE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum GldStatus {
  GLD_OK = 0,
  GLD_INVALID_ARGUMENT = 1,
  GLD_NOT_FOUND = 2,
  GLD_UNIMPLEMENTED = 3,
  GLD_FAILED_PRECONDITION = 4,
  GLD_UNAVAILABLE = 5,
  GLD_DATA_LOSS = 6,
  GLD_OUT_OF_RANGE = 7,
  GLD_INTERNAL = 8
} GldStatus;

typedef enum GldBackend { GLD_BACKEND_AUTO = 0, GLD_BACKEND_GL = 1, GLD_BACKEND_CPU = 2 } GldBackend;
/* FP16: fp16 storage, fp32 arithmetic; FP16_MEDIUMP: fp16 storage, mediump
   arithmetic (fp16 ALUs where the GPU has them). */
typedef enum GldPrecision {
  GLD_PRECISION_FP32 = 0,
  GLD_PRECISION_FP16 = 1,
  GLD_PRECISION_FP16_MEDIUMP = 2
} GldPrecision;

typedef enum GldElementType {
  GLD_TYPE_UNKNOWN = 0,
  GLD_TYPE_FLOAT32 = 1,
  GLD_TYPE_FLOAT16 = 2,
  GLD_TYPE_FLOAT64 = 3,
  GLD_TYPE_INT8 = 4,
  GLD_TYPE_UINT8 = 5,
  GLD_TYPE_INT16 = 6,
  GLD_TYPE_INT32 = 7,
  GLD_TYPE_INT64 = 8,
  GLD_TYPE_BOOL = 9
} GldElementType;

typedef struct GldModel GldModel;
typedef struct GldOptions GldOptions;
typedef struct GldInterpreter GldInterpreter;

/* A tensor's description. The pointers stay valid while the interpreter lives. */
typedef struct GldTensorInfo {
  const char* name;
  GldElementType type;
  int32_t num_dims;
  const int32_t* dims;
  size_t bytes; /* element count x element size */
  /* Quantization (raw int8/uint8 tensors): 0 scales when not quantized. */
  int32_t num_scales;
  const float* scales;
  const int64_t* zero_points;
} GldTensorInfo;

const char* GldVersion(void);
/* The message of the last failed call on this thread ("" when none). */
const char* GldLastErrorMessage(void);
/* "OK", "INVALID_ARGUMENT", ... */
const char* GldStatusName(GldStatus status);

GldStatus GldModelCreateFromFile(const char* path, GldModel** out_model);
GldStatus GldModelCreateFromBuffer(const void* data, size_t size, GldModel** out_model);
void GldModelDelete(GldModel* model);

/* Defaults: backend auto, fp32, 1 thread, log level from GLD_LOG_LEVEL. */
GldOptions* GldOptionsCreate(void);
void GldOptionsDelete(GldOptions* options);
GldStatus GldOptionsSetBackend(GldOptions* options, GldBackend backend);
GldStatus GldOptionsSetPrecision(GldOptions* options, GldPrecision precision);
GldStatus GldOptionsSetNumThreads(GldOptions* options, int32_t num_threads);
/* "trace", "debug", "info", "warn", "error", "off"; NULL or "" for the default. */
GldStatus GldOptionsSetLogLevel(GldOptions* options, const char* level);
/* An op name ("CONV_2D") that must run on the CPU; may be called repeatedly. */
GldStatus GldOptionsAddGpuDenyOp(GldOptions* options, const char* op);
GldStatus GldOptionsSetCacheDir(GldOptions* options, const char* dir);

/* `options` may be NULL for the defaults. */
GldStatus GldInterpreterCreate(const GldModel* model, const GldOptions* options, GldInterpreter** out_interpreter);
void GldInterpreterDelete(GldInterpreter* interpreter);

int32_t GldInterpreterGetInputCount(const GldInterpreter* interpreter);
int32_t GldInterpreterGetOutputCount(const GldInterpreter* interpreter);
GldStatus GldInterpreterGetInputInfo(const GldInterpreter* interpreter, int32_t index, GldTensorInfo* out_info);
GldStatus GldInterpreterGetOutputInfo(const GldInterpreter* interpreter, int32_t index, GldTensorInfo* out_info);

/* `bytes` must equal the tensor's size. */
GldStatus GldInterpreterSetInput(GldInterpreter* interpreter, int32_t index, const void* data, size_t bytes);
GldStatus GldInterpreterInvoke(GldInterpreter* interpreter);
GldStatus GldInterpreterGetOutput(const GldInterpreter* interpreter, int32_t index, void* data, size_t bytes);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* GLDELEGATE_GLDELEGATE_H_ */
