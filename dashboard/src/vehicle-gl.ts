/**
 * The WebGL side of the vehicle layer: one instanced draw of screen-facing quads, each a circle
 * with a fill and an outer stroke (markers, rings, groups) or a digit of a group's count. The
 * instances come packed in draw order by `VehicleLayer`; this module owns the program, the
 * buffers and the digit atlas, and knows nothing about vehicles.
 *
 * Positions are Web Mercator (0..1) split into a float32 high part and the remainder, and the
 * shader subtracts the view's centre from each part before projecting ("relative to centre"): a
 * plain float32 Mercator coordinate is only good to about 2 px at street zoom and would make
 * markers jitter.
 */

/** What kind of quad an instance is. */
export const shapeKind = {
  /** A circle whose radius and stroke follow the zoom (`zoomScale`, `strokeScale`). */
  scaledCircle: 0,
  /** A circle of fixed size (a group). */
  fixedCircle: 1,
  /** A digit of a group's count; `radius` is half its height. */
  digit: 2,
} as const;

/** 32-bit words per instance: xHi, yHi, xLo, yLo, radius, stroke, kind, offsetX, digit, fill, stroke colour. */
export const instanceWords = 11;
const instanceBytes = instanceWords * 4;

/** The digit atlas: ten cells in a row, each this many CSS pixels. */
const digitCell = { width: 8, height: 12 };
/** Horizontal distance between the digits of a count, CSS pixels. */
export const digitAdvancePx = 6.5;
export const digitHalfHeightPx = digitCell.height / 2;

export interface FrameUniforms {
  /** The projection of Mercator (x, y, 0, 1) to clip space, float64, column-major (MapLibre's mainMatrix). */
  matrix: ArrayLike<number>;
  /** Near the view's centre, Mercator. */
  centreX: number;
  centreY: number;
  /** The canvas in CSS pixels. */
  widthPx: number;
  heightPx: number;
  zoomScale: number;
  strokeScale: number;
}

/** Packs an `#rrggbb` colour and an opacity as the four bytes the shader reads (little-endian RGBA). */
export function packColour(hex: string, opacity = 1): number {
  const value = Number.parseInt(hex.slice(1), 16);
  const alpha = Math.round(Math.min(1, Math.max(0, opacity)) * 255);
  return ((alpha << 24) | ((value & 0xff) << 16) | (value & 0xff00) | ((value >> 16) & 0xff)) >>> 0;
}

const vertexSource = `#version 300 es
in vec2 a_corner;
in vec4 a_pos;
in vec4 a_shape;
in float a_digit;
in vec4 a_fill;
in vec4 a_stroke;
uniform vec2 u_centre_hi;
uniform vec2 u_centre_lo;
uniform vec4 u_origin;
uniform vec4 u_col0;
uniform vec4 u_col1;
uniform vec2 u_size_px;
uniform float u_zoom_scale;
uniform float u_stroke_scale;
out vec2 v_px;
out vec2 v_uv;
out float v_radius;
out float v_stroke_width;
flat out float v_kind;
out vec4 v_fill;
out vec4 v_stroke;
void main() {
  vec2 d = (a_pos.xy - u_centre_hi) + (a_pos.zw - u_centre_lo);
  vec4 clip = u_origin + d.x * u_col0 + d.y * u_col1;
  float kind = a_shape.z;
  float scaled = kind < 0.5 ? 1.0 : 0.0;
  float radius = a_shape.x * mix(1.0, u_zoom_scale, scaled);
  float strokeWidth = a_shape.y * mix(1.0, u_stroke_scale, scaled);
  vec2 halfSize = kind > 1.5
    ? vec2(radius * ${(digitCell.width / digitCell.height).toFixed(4)}, radius)
    : vec2(radius + strokeWidth + 1.0);
  vec2 offset = a_corner * halfSize + vec2(a_shape.w, 0.0);
  clip.xy += offset * vec2(2.0, -2.0) / u_size_px * clip.w;
  gl_Position = clip;
  v_px = a_corner * halfSize;
  v_uv = vec2((a_digit + 0.5 + 0.5 * a_corner.x) / 10.0, 0.5 + 0.5 * a_corner.y);
  v_radius = radius;
  v_stroke_width = strokeWidth;
  v_kind = kind;
  v_fill = vec4(a_fill.rgb * a_fill.a, a_fill.a);
  v_stroke = vec4(a_stroke.rgb * a_stroke.a, a_stroke.a);
}`;

const fragmentSource = `#version 300 es
precision mediump float;
in vec2 v_px;
in vec2 v_uv;
in float v_radius;
in float v_stroke_width;
flat in float v_kind;
in vec4 v_fill;
in vec4 v_stroke;
uniform sampler2D u_digits;
out vec4 colour;
void main() {
  if (v_kind > 1.5) {
    colour = v_fill * texture(u_digits, v_uv).a;
    return;
  }
  float distance = length(v_px);
  float inside = clamp(v_radius - distance + 0.5, 0.0, 1.0);
  float covered = clamp(v_radius + v_stroke_width - distance + 0.5, 0.0, 1.0);
  if (covered <= 0.0) discard;
  colour = mix(v_stroke, v_fill, inside) * covered;
}`;

/** The program, buffers and atlas, made on the first frame, in the fleet canvas's own context. */
export class VehicleGl {
  private readonly program: WebGLProgram;
  private readonly vao: WebGLVertexArrayObject;
  private readonly instanceBuffer: WebGLBuffer;
  private readonly digits: WebGLTexture;
  private readonly uniforms: Record<string, WebGLUniformLocation | null>;
  private instanceCount = 0;

  constructor(
    private readonly gl: WebGL2RenderingContext,
    pixelRatio: number,
  ) {
    this.program = link(gl, vertexSource, fragmentSource);
    const names = [
      'u_centre_hi',
      'u_centre_lo',
      'u_origin',
      'u_col0',
      'u_col1',
      'u_size_px',
      'u_zoom_scale',
      'u_stroke_scale',
      'u_digits',
    ];
    this.uniforms = Object.fromEntries(names.map((name) => [name, gl.getUniformLocation(this.program, name)]));
    const vao = gl.createVertexArray();
    const corners = gl.createBuffer();
    const instances = gl.createBuffer();
    if (!vao || !corners || !instances) throw new Error('WebGL buffers could not be created');
    this.vao = vao;
    this.instanceBuffer = instances;
    gl.bindVertexArray(vao);
    gl.bindBuffer(gl.ARRAY_BUFFER, corners);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    const attribute = (name: string) => gl.getAttribLocation(this.program, name);
    gl.enableVertexAttribArray(attribute('a_corner'));
    gl.vertexAttribPointer(attribute('a_corner'), 2, gl.FLOAT, false, 0, 0);
    gl.bindBuffer(gl.ARRAY_BUFFER, instances);
    const perInstance = (name: string, size: number, type: number, normalized: boolean, word: number) => {
      const location = attribute(name);
      gl.enableVertexAttribArray(location);
      gl.vertexAttribPointer(location, size, type, normalized, instanceBytes, word * 4);
      gl.vertexAttribDivisor(location, 1);
    };
    perInstance('a_pos', 4, gl.FLOAT, false, 0);
    perInstance('a_shape', 4, gl.FLOAT, false, 4);
    perInstance('a_digit', 1, gl.FLOAT, false, 8);
    perInstance('a_fill', 4, gl.UNSIGNED_BYTE, true, 9);
    perInstance('a_stroke', 4, gl.UNSIGNED_BYTE, true, 10);
    gl.bindVertexArray(null);
    this.digits = digitAtlas(gl, pixelRatio);
  }

  /** One upload of the packed instances; called only when they changed. */
  upload(words: ArrayBuffer, count: number): void {
    const { gl } = this;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.instanceBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Uint8Array(words, 0, count * instanceBytes), gl.DYNAMIC_DRAW);
    this.instanceCount = count;
  }

  draw(frame: FrameUniforms): void {
    const { gl, uniforms: u } = this;
    if (this.instanceCount === 0) return;
    const m = frame.matrix;
    const at = (i: number) => m[i] ?? 0;
    // M · (centre, 0, 1) in float64: the shader adds only the small remainder.
    const origin = [0, 1, 2, 3].map((row) => at(row) * frame.centreX + at(4 + row) * frame.centreY + at(12 + row));
    const hiX = Math.fround(frame.centreX);
    const hiY = Math.fround(frame.centreY);
    gl.useProgram(this.program);
    gl.uniform2f(u.u_centre_hi ?? null, hiX, hiY);
    gl.uniform2f(u.u_centre_lo ?? null, frame.centreX - hiX, frame.centreY - hiY);
    gl.uniform4f(u.u_origin ?? null, origin[0] ?? 0, origin[1] ?? 0, origin[2] ?? 0, origin[3] ?? 1);
    gl.uniform4f(u.u_col0 ?? null, at(0), at(1), at(2), at(3));
    gl.uniform4f(u.u_col1 ?? null, at(4), at(5), at(6), at(7));
    gl.uniform2f(u.u_size_px ?? null, frame.widthPx, frame.heightPx);
    gl.uniform1f(u.u_zoom_scale ?? null, frame.zoomScale);
    gl.uniform1f(u.u_stroke_scale ?? null, frame.strokeScale);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.digits);
    gl.uniform1i(u.u_digits ?? null, 0);
    gl.disable(gl.DEPTH_TEST);
    gl.disable(gl.STENCIL_TEST);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.bindVertexArray(this.vao);
    gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, this.instanceCount);
    gl.bindVertexArray(null);
  }

  dispose(): void {
    const { gl } = this;
    gl.deleteProgram(this.program);
    gl.deleteVertexArray(this.vao);
    gl.deleteBuffer(this.instanceBuffer);
    gl.deleteTexture(this.digits);
  }
}

/** The digits 0–9 in white, bold, drawn by the browser's own text renderer into a texture. */
function digitAtlas(gl: WebGL2RenderingContext, pixelRatio: number): WebGLTexture {
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(digitCell.width * 10 * pixelRatio);
  canvas.height = Math.ceil(digitCell.height * pixelRatio);
  const context = canvas.getContext('2d');
  const texture = gl.createTexture();
  if (!context || !texture) throw new Error('the digit atlas could not be created');
  context.scale(pixelRatio, pixelRatio);
  context.fillStyle = '#ffffff';
  context.font = 'bold 11px sans-serif';
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  for (let digit = 0; digit < 10; digit++)
    context.fillText(String(digit), (digit + 0.5) * digitCell.width, digitCell.height / 2 + 0.5);
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, canvas);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  return texture;
}

function link(gl: WebGL2RenderingContext, vertex: string, fragment: string): WebGLProgram {
  const program = gl.createProgram();
  if (!program) throw new Error('WebGL program could not be created');
  for (const [type, source] of [
    [gl.VERTEX_SHADER, vertex],
    [gl.FRAGMENT_SHADER, fragment],
  ] as const) {
    const shader = gl.createShader(type);
    if (!shader) throw new Error('WebGL shader could not be created');
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS))
      throw new Error(`vehicle shader: ${gl.getShaderInfoLog(shader) ?? 'did not compile'}`);
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS))
    throw new Error(`vehicle shader: ${gl.getProgramInfoLog(program) ?? 'did not link'}`);
  return program;
}
