// texture_to_bhwc.comp: an app's 2D texture -> a float32 BHWC host-layout
// buffer (a GL segment's input staging buffer), normalised per channel:
// value = texelFetch(texture, (x, y)) * u_scale + u_offset. Texel (x, y)
// (row y of the texture's memory, row 0 first) becomes element (0, y, x, c)
// for c < C; a normalised format (RGBA8) samples as texel / 255. The
// segment's usual BHWC -> PHWC4 conversion runs after it.
//
// Bindings: 0 output words (float32 BHWC). Texture: u_texture.
// Uniforms: u_grid (W, H, 1), u_channels, u_scale, u_offset.

layout(std430, binding = 0) writeonly restrict buffer Output { float data[]; } out_t;

uniform highp sampler2D u_texture;
uniform int u_channels;
uniform vec4 u_scale;
uniform vec4 u_offset;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  vec4 v = texelFetch(u_texture, gid.xy, 0) * u_scale + u_offset;
  int first = (gid.y * u_grid.x + gid.x) * u_channels;
  for (int c = 0; c < u_channels; ++c) out_t.data[first + c] = v[c];
}
