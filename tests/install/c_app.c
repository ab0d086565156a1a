/* An app written in C that links the installed library through pkg-config:
 * runs a model on the GL backend and on the CPU backend with the same input
 * and checks that every output agrees (max error <= 1e-4 of the output's
 * largest magnitude, the fp32 tolerance of tests/gl/shared_models_gl_test).
 *   c_app MODEL.tflite */
#include <gldelegate/gldelegate.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Outputs {
  int count;
  float* data[8];
  size_t floats[8];
} Outputs;

static int Check(GldStatus status, const char* what) {
  if (status == GLD_OK) return 1;
  fprintf(stderr, "%s: %s\n", what, GldLastErrorMessage());
  return 0;
}

/* Runs `model` on `backend` with input i = sin(i * 0.01) and keeps the outputs. */
static int Run(const GldModel* model, GldBackend backend, Outputs* out) {
  GldOptions* options = GldOptionsCreate();
  GldInterpreter* interp = NULL;
  int ok = options != NULL && Check(GldOptionsSetBackend(options, backend), "set backend") &&
           Check(GldInterpreterCreate(model, options, &interp), "create");
  GldOptionsDelete(options);
  if (!ok) return 0;
  GldTensorInfo info;
  ok = Check(GldInterpreterGetInputInfo(interp, 0, &info), "input info") && info.type == GLD_TYPE_FLOAT32;
  if (ok) {
    float* in = malloc(info.bytes);
    for (size_t i = 0; i < info.bytes / sizeof(float); ++i) in[i] = (float)sin((double)i * 0.01);
    ok = Check(GldInterpreterSetInput(interp, 0, in, info.bytes), "set input") &&
         Check(GldInterpreterInvoke(interp), "invoke");
    free(in);
  }
  out->count = GldInterpreterGetOutputCount(interp);
  for (int o = 0; ok && o < out->count && o < 8; ++o) {
    ok = Check(GldInterpreterGetOutputInfo(interp, o, &info), "output info") && info.type == GLD_TYPE_FLOAT32;
    if (!ok) break;
    out->floats[o] = info.bytes / sizeof(float);
    out->data[o] = malloc(info.bytes);
    ok = Check(GldInterpreterGetOutput(interp, o, out->data[o], info.bytes), "get output");
  }
  GldInterpreterDelete(interp);
  return ok;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_app MODEL.tflite\n");
    return 2;
  }
  printf("gldelegate %s\n", GldVersion());
  GldModel* model = NULL;
  if (!Check(GldModelCreateFromFile(argv[1], &model), "load")) return 1;
  Outputs gl = {0}, cpu = {0};
  int ok = Run(model, GLD_BACKEND_GL, &gl) && Run(model, GLD_BACKEND_CPU, &cpu) && gl.count == cpu.count;
  GldModelDelete(model);
  for (int o = 0; ok && o < gl.count && o < 8; ++o) {
    double max_ref = 0, max_err = 0;
    for (size_t i = 0; i < gl.floats[o]; ++i) {
      if (fabs(cpu.data[o][i]) > max_ref) max_ref = fabs(cpu.data[o][i]);
      if (fabs(gl.data[o][i] - cpu.data[o][i]) > max_err) max_err = fabs(gl.data[o][i] - cpu.data[o][i]);
    }
    printf("output %d: %zu floats, max |cpu| %g, max |gl - cpu| %g\n", o, gl.floats[o], max_ref, max_err);
    if (!(max_ref > 0) || max_err > 1e-4 * max_ref) {
      fprintf(stderr, "output %d: GL and CPU differ (max error %g, max |cpu| %g)\n", o, max_err, max_ref);
      ok = 0;
    }
  }
  for (int o = 0; o < 8; ++o) {
    free(gl.data[o]);
    free(cpu.data[o]);
  }
  return ok ? 0 : 1;
}
