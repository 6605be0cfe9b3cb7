from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('playground', '0004_run_kubernetes_version'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='feature_gates',
            field=models.CharField(blank=True, default='', max_length=2000),
        ),
        migrations.AddField(
            model_name='scenario',
            name='feature_gates',
            field=models.CharField(blank=True, default='', max_length=2000),
        ),
    ]
