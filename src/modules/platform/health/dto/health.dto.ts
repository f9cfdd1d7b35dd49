import { ApiProperty } from '@nestjs/swagger';

export class HealthDto {
  @ApiProperty({ example: 'ok' }) status!: string;
}

export class VersionDto {
  @ApiProperty({ example: '1.0.0', description: 'Service (package) version' }) version!: string;
  @ApiProperty({ example: '3f2c1e9a…', description: 'Code revision, injected at build' }) commit!: string;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-21T10:00:00.000Z', description: 'ISO build time' })
  build_time!: string | null;
  @ApiProperty({ example: '1763740800000-Foundation', description: 'Newest migration file the code expects' })
  migration!: string;
}
